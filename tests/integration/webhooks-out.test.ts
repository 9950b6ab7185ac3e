import { describe, expect, test, vi } from 'vitest';
import { freeDeliverySlot, takeDeliverySlot } from '#db/webhook-leases.ts';
import { ENDPOINT_CONCURRENCY } from '#domain/webhooks-out/delivery.ts';
import { useLocalServer } from '../fixtures/api.ts';
import { makePlan } from '../fixtures/factories.ts';
import { eventually, useWebhookReceiver } from '../fixtures/webhook-receiver.ts';

// Before the server reads its configuration: the 24 h retry schedule shrunk to a blink.
vi.hoisted(() => {
  process.env.WEBHOOK_RETRY_SCALE = '0.001';
});

const server = useLocalServer();
const hooks = useWebhookReceiver(server);

async function setUp(label: string) {
  const project = await hooks.project(label);
  const plan = await makePlan(project.api, project.slug, { name: 'Pro' });
  return { ...project, planId: plan.id as number };
}

describe('webhooks out', () => {
  test('subscription created and updated, customer deleted (an unchanged write sends nothing), each signed and verified', async () => {
    const { api, base, planId, endpoint } = await setUp('events');
    const all = await endpoint('/all');
    const deletesOnly = await endpoint('/deletes', ['customer.deleted']);
    expect((await api.put(`${base}/customers/ada`, { planId })).status).toBe(200);
    expect((await api.put(`${base}/customers/ada`, { planId })).status).toBe(200); // no change: no event
    expect((await api.put(`${base}/customers/ada`, { planId, seats: 3 })).status).toBe(200);
    expect((await api.delete(`${base}/customers/ada`)).status).toBe(200);
    const got = await eventually(
      () => hooks.receiver.on('/all'),
      (r) => r.length >= 3,
    );
    expect(got.map((r) => r.body.type)).toEqual(['subscription.created', 'subscription.updated', 'customer.deleted']);
    for (const r of got) {
      expect(r.verifiedWith).toBe(all.secret);
      expect(r.id).toBe(r.body.id);
      expect(r.body.id).toMatch(/^evt_/);
      expect(r.body.data.customerId).toBe('ada');
    }
    expect(got[1]?.body.data.subscription.seats).toBe(3);
    const deletes = await eventually(
      () => hooks.receiver.on('/deletes'),
      (r) => r.length >= 1,
    );
    expect(deletes.map((r) => [r.body.type, r.verifiedWith])).toEqual([['customer.deleted', deletesOnly.secret]]);
    const log = await api.get(`${base}/webhook-endpoints/${all.id}/deliveries?limit=2`);
    expect(log.body.deliveries.map((d: { type: string }) => d.type)).toEqual([
      'customer.deleted',
      'subscription.updated',
    ]);
    expect(log.body.deliveries[0]).toMatchObject({ status: 'succeeded', attempts: 1, lastResponseStatus: 200 });
    const next = await api.get(`${base}/webhook-endpoints/${all.id}/deliveries?limit=2&cursor=${log.body.nextCursor}`);
    expect(next.body.deliveries.map((d: { type: string }) => d.type)).toEqual(['subscription.created']);
    expect(next.body.nextCursor).toBeNull();
  });

  test('a failing receiver is retried with the same webhook-id; 410 disables the endpoint', async () => {
    const { api, base, planId, endpoint } = await setUp('retries');
    const flaky = await endpoint('/flaky');
    hooks.receiver.answer('/flaky', 500, 302, 200);
    await api.put(`${base}/customers/bo`, { planId });
    const attempts = await eventually(
      () => hooks.receiver.on('/flaky'),
      (r) => r.length >= 3,
    );
    expect(new Set(attempts.map((r) => r.id)).size).toBe(1);
    const [delivery] = (
      await eventually(
        () => api.get(`${base}/webhook-endpoints/${flaky.id}/deliveries`),
        (a) => a.body.deliveries[0]?.status === 'succeeded',
      )
    ).body.deliveries;
    expect(delivery).toMatchObject({ attempts: 3, lastResponseStatus: 200 });

    const gone = await endpoint('/gone');
    hooks.receiver.answer('/gone', 410);
    await api.put(`${base}/customers/cy`, { planId });
    const listed = await eventually(
      () => api.get(`${base}/webhook-endpoints`),
      (a) => a.body.webhookEndpoints.find((e: { id: number }) => e.id === gone.id)?.disabledAt !== null,
    );
    expect(listed.status).toBe(200);
    // A resend to the disabled endpoint is refused, and its delivery keeps the 410 it got.
    const [goneDelivery] = (
      await eventually(
        () => api.get(`${base}/webhook-endpoints/${gone.id}/deliveries`),
        (a) => a.body.deliveries[0]?.status === 'failed',
      )
    ).body.deliveries;
    const resend = await api.post(`${base}/webhook-endpoints/${gone.id}/deliveries/${goneDelivery.id}/retry`);
    expect(resend.status).toBe(409);
    expect(resend.body.error).toMatchObject({ code: 'conflict', message: expect.stringContaining('410 Gone') });
    const kept = await api.get(`${base}/webhook-endpoints/${gone.id}/deliveries`);
    expect(kept.body.deliveries[0]).toEqual(goneDelivery);
    expect(goneDelivery).toMatchObject({ attempts: 1, lastResponseStatus: 410 });
    await api.put(`${base}/customers/dee`, { planId });
    await eventually(
      () => hooks.receiver.on('/flaky'),
      (r) => r.some((x) => x.body.data.customerId === 'dee'),
    );
    expect(hooks.receiver.on('/gone')).toHaveLength(1);
  });

  test('after a rotation, a resend of an older event is signed with the new secret only', async () => {
    const { api, base, planId, endpoint } = await setUp('rotation');
    const hook = await endpoint('/rotate');
    await api.put(`${base}/customers/eve`, { planId });
    const [first] = await eventually(
      () => hooks.receiver.on('/rotate'),
      (r) => r.length === 1,
    );
    const rotated = await api.post(`${base}/webhook-endpoints/${hook.id}/rotate-secret`);
    hooks.receiver.trust(rotated.body.secret);
    const [delivery] = (await api.get(`${base}/webhook-endpoints/${hook.id}/deliveries`)).body.deliveries;
    expect((await api.post(`${base}/webhook-endpoints/${hook.id}/deliveries/${delivery.id}/retry`)).status).toBe(202);
    const again = await eventually(
      () => hooks.receiver.on('/rotate'),
      (r) => r.length === 2,
    );
    expect(again[1]?.id).toBe(first?.id);
    expect(first?.verifiedWith).toBe(hook.secret);
    expect(again[1]?.verifiedWith).toBe(rotated.body.secret);
  });

  test('a hanging receiver holds at most its slots; the other endpoints get theirs at once', async () => {
    const { api, base, planId, endpoint } = await setUp('per-endpoint');
    await endpoint('/hangs');
    await endpoint('/quick');
    hooks.receiver.answer('/hangs', 0, 0, 0, 0);
    for (const customer of ['h1', 'h2', 'h3', 'h4']) await api.put(`${base}/customers/${customer}`, { planId });
    await eventually(
      () => hooks.receiver.on('/quick'),
      (r) => r.length === 4,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hooks.receiver.on('/hangs')).toHaveLength(ENDPOINT_CONCURRENCY);
  });

  test("an endpoint's slots hold across instances: taken until freed or their lease runs out", async () => {
    const ref = { projectId: 999_999_001, endpointId: 1 };
    const leases = await Promise.all(Array.from({ length: 5 }, () => takeDeliverySlot(ref, 2, 60_000)));
    const held = leases.filter((lease) => lease !== undefined);
    expect(held.map((lease) => lease.slot).sort()).toEqual([0, 1]);
    await freeDeliverySlot(ref, held[0] as { slot: number; holder: string });
    const again = await takeDeliverySlot(ref, 2, 1);
    expect(again?.slot).toBe(held[0]?.slot);
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Its lease ran out: the slot is free again, and the late holder's free leaves the new one.
    const next = await takeDeliverySlot(ref, 2, 60_000);
    expect(next?.slot).toBe(held[0]?.slot);
    await freeDeliverySlot(ref, again as { slot: number; holder: string });
    expect(await takeDeliverySlot(ref, 2, 60_000)).toBeUndefined();
  });
});
