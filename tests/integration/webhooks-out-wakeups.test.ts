import { describe, expect, test } from 'vitest';
import { composeFromEnvironment } from '#dev/local-server.ts';
import { LocalWebhooksOut } from '#dev/local-webhooks-out.ts';
import { httpWebhookSender } from '#shared/webhooks-out/http-sender.ts';
import { useLocalServer } from '../fixtures/api.ts';
import { makePlan } from '../fixtures/factories.ts';
import { eventually, useWebhookReceiver } from '../fixtures/webhook-receiver.ts';

/**
 * A change that takes effect at period end, whose wake-up a process set and then lost (it
 * stopped before the period's end): the next start of the local delivery finds the waiting
 * change in its scan of the table, wakes at the period's end and sends subscription.updated
 * (subscription.canceled for a cancel at period end).
 */
const server = useLocalServer({ webhooksOut: false });
const hooks = useWebhookReceiver(server);

/**
 * A local delivery runs while `change` makes something wait for its period end (it dispatches
 * the change's due item, the outbox item goes, and sets its timer) and stops before the
 * period's end, so only the stored customer says a change waits; another then starts, and
 * `delivered` runs while it delivers.
 */
async function restartedAround(change: () => Promise<void>, delivered: () => Promise<void>) {
  const app = composeFromEnvironment();
  const run = () => new LocalWebhooksOut(app.ports.keyring, httpWebhookSender('loopback'), 0.001);
  const first = run();
  first.start();
  await change();
  await new Promise((resolve) => setTimeout(resolve, 300));
  await first.idle();
  await first.stop();
  const delivery = run();
  delivery.start();
  try {
    await delivered();
  } finally {
    await delivery.stop();
  }
}

describe('wake-ups under npm start', () => {
  test('a start finds a change waiting for its period end and sends its event when the period ends', async () => {
    const { api, base, slug, endpoint } = await hooks.project('wakeup-restart');
    await endpoint('/restart');
    const big = await makePlan(api, slug, { name: 'Big', basePrice: 50 });
    const small = await makePlan(api, slug, { name: 'Small', basePrice: 5 });
    const end = new Date(Date.now() + 2_000).toISOString();
    expect((await api.put(`${base}/customers/waits`, { planId: big.id, currentPeriodEnd: end })).status).toBe(200);
    await restartedAround(
      async () => {
        const changed = await api.post(`${base}/customers/waits/subscription`, { planId: small.id, at: 'period_end' });
        expect(changed.status, changed.text).toBe(200);
      },
      async () => {
        const got = await eventually(
          () => hooks.receiver.on('/restart'),
          (r) => r.some((x) => x.body.data.subscription?.planId === small.id),
        );
        const update = got.find((x) => x.body.data.subscription?.planId === small.id);
        expect(update?.body.type).toBe('subscription.updated');
        expect(update?.verifiedWith).toBeDefined();
        expect(Date.parse(update?.body.createdAt ?? '')).toBeGreaterThanOrEqual(Date.parse(end));
      },
    );
  });
  test('a start finds a cancel waiting for its period end and sends subscription.canceled when the period ends', async () => {
    const { api, base, slug, endpoint } = await hooks.project('wakeup-cancel');
    await endpoint('/cancel');
    const plan = await makePlan(api, slug, { name: 'Big', basePrice: 50 });
    const end = new Date(Date.now() + 2_000).toISOString();
    expect((await api.put(`${base}/customers/ends`, { planId: plan.id, currentPeriodEnd: end })).status).toBe(200);
    await restartedAround(
      async () => {
        const cancel = await api.post(`${base}/customers/ends/subscription/cancel`, { atPeriodEnd: true });
        expect(cancel.status, cancel.text).toBe(200);
      },
      async () => {
        const got = await eventually(
          () => hooks.receiver.on('/cancel'),
          (r) => r.some((x) => x.body.type === 'subscription.canceled'),
        );
        const canceled = got.filter((x) => x.body.type === 'subscription.canceled');
        expect(canceled).toHaveLength(1);
        expect(canceled[0]?.verifiedWith).toBeDefined();
        expect(canceled[0]?.body.data.subscription).toMatchObject({ status: 'canceled' });
        expect(Date.parse(canceled[0]?.body.createdAt ?? '')).toBeGreaterThanOrEqual(Date.parse(end));
      },
    );
  });
});
