// An endpoint's delivery slots (shared/db/entities/webhooks-out.ts, webhookLease).

import { randomUUID } from 'node:crypto';
import { ifConditionFails } from './errors.ts';
import { db } from './service.ts';

type EndpointRef = { projectId: number; endpointId: number };

/**
 * Takes one of the endpoint's `slots` for `leaseMs`, trying them from a random one: the
 * lease to give back, or undefined when every slot is held.
 */
export async function takeDeliverySlot(
  endpoint: EndpointRef,
  slots: number,
  leaseMs: number,
): Promise<{ slot: number; holder: string } | undefined> {
  const holder = randomUUID();
  const first = Math.floor(Math.random() * slots);
  for (let i = 0; i < slots; i++) {
    const slot = (first + i) % slots;
    const now = Date.now();
    const put = db()
      .entities.webhookLease.put({
        ...endpoint,
        slot,
        holder,
        until: now + leaseMs,
        expiresAt: Math.ceil((now + leaseMs) / 1000) + 3600,
      })
      .where(({ until }, { notExists, lt }) => `${notExists(until)} OR ${lt(until, now)}`)
      .go();
    if ((await ifConditionFails(put, 'held')) !== 'held') return { slot, holder };
  }
  return undefined;
}

/** Gives the slot back, unless its lease ran out and another attempt holds it now. */
export async function freeDeliverySlot(endpoint: EndpointRef, lease: { slot: number; holder: string }) {
  const release = db()
    .entities.webhookLease.delete({ ...endpoint, slot: lease.slot })
    .where(({ holder }, { eq }) => eq(holder, lease.holder))
    .go();
  await ifConditionFails(release, 'lost');
}
