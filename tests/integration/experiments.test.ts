import { randomBytes } from 'node:crypto';
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { countOnce } from '#db/experiments.ts';
import { paymentRecordsKeyPrefix } from '#db/table.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makePlan, makeProject } from '../fixtures/factories.ts';
import { sendFrom } from '../fixtures/send-from.ts';
import { deliver, newWebhookSecret, stripeEvent } from '../fixtures/stripe-events.ts';
import { sweepsFinished } from '../fixtures/sweeps.ts';
import { entityOf, itemsOfProject, itemsUnderKeyPrefix } from '../fixtures/table.ts';

// The fake Stripe server must exist before the handlers read STRIPE_API_BASE at load.
const { fake } = await vi.hoisted(async () => {
  const { startFakeStripe } = await import('#dev/fake-stripe/index.ts');
  const started = await startFakeStripe();
  process.env.STRIPE_API_BASE = started.url;
  process.env.STRIPE_TIMEOUT_MS = '2000';
  return { fake: started };
});

const server = useLocalServer();
let api: ApiClient;
let readOnly: ApiClient;
let visitor: ApiClient;
let ownerId: string;

beforeAll(async () => {
  const owner = await newOwner('experiments');
  ownerId = owner.ownerId;
  api = server.client(owner.writeKey);
  readOnly = server.client(owner.readKey);
  visitor = server.client(null);
});

afterAll(async () => {
  await fake.close();
});

const urls = {
  checkoutTestSuccessUrl: 'https://acme.example/thanks',
  checkoutTestCancelUrl: 'https://acme.example/pricing',
};

/** A project that sells (test key, webhook secret) with a Pro plan at 29 and a Team plan at 99. */
async function shop() {
  const webhookSecret = newWebhookSecret();
  const project = await makeProject(api, {
    paymentSecretKey: `sk_test_${randomBytes(24).toString('hex')}`,
    paymentWebhookSecret: webhookSecret,
    ...urls,
  });
  const pro = await makePlan(api, project.slug, { name: 'Pro', basePrice: 29, freemiumDay: 0 });
  const team = await makePlan(api, project.slug, { name: 'Team', basePrice: 99 });
  return { project, pro, team, webhookSecret, base: `/api/v1/projects/${project.slug}/experiments` };
}

type Shop = Awaited<ReturnType<typeof shop>>;

/** Control a (Pro 29), test b (Pro 39, 14 days' trial), weights 1:1 unless given. */
function priceTest(s: Shop, weights: [number, number] = [1, 1]) {
  return {
    name: 'Pro at 39',
    variants: [
      { key: 'a', weight: weights[0], plans: [] },
      { key: 'b', weight: weights[1], plans: [{ planId: s.pro.id, basePrice: 39, freemiumDay: 14 }] },
    ],
  };
}

async function started(s: Shop, weights?: [number, number]) {
  const created = await api.post(s.base, priceTest(s, weights));
  expect(created.status, created.text).toBe(201);
  const start = await api.post(`${s.base}/${created.body.id}/start`);
  expect(start.status, start.text).toBe(200);
  return created.body.id as number;
}

const visitorIds = (count: number, label = 'v') =>
  Array.from({ length: count }, (_, i) => `${label}${i}_${randomBytes(6).toString('base64url')}`);

async function variantOf(s: Shop, id: string): Promise<string> {
  const response = await visitor.get(`/api/share/${s.project.shareId}?visitor=${id}`);
  expect(response.status, response.text).toBe(200);
  return response.body.experiment.variant;
}

/** A view sent from `address`: each sender of these tests is a client of its own, as visitors are. */
const viewFrom = (address: string, s: Shop, visitorId: string) =>
  sendFrom(address, `${server.url}/api/share/${s.project.shareId}/views`, 'POST', { visitor: visitorId });

/** The project's experiment markers and tallies, in its tally shards. */
async function countItemsOf(s: Shop) {
  const shards = await itemsUnderKeyPrefix(`${paymentRecordsKeyPrefix}${String(s.project.id).padStart(12, '0')}#`);
  return shards.filter((item) => ['experimentMark', 'experimentTally'].includes(entityOf(item)));
}

/** Runs `work` over `items`, `width` at a time. */
async function inParallel<T, R>(items: T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i] as T);
      }
    }),
  );
  return results;
}

describe('experiments API', () => {
  test('create, list, get, edit a draft, start, stop; each write in the change log', async () => {
    const s = await shop();
    const created = await api.post(s.base, priceTest(s));
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'Pro at 39',
      status: 'draft',
      variants: [
        { key: 'a', weight: 1, plans: [] },
        { key: 'b', weight: 1, plans: [{ planId: s.pro.id, basePrice: 39, freemiumDay: 14 }] },
      ],
      createdAt: expect.any(String),
      startedAt: null,
      stoppedAt: null,
    });
    const id = created.body.id;
    expect((await readOnly.get(s.base)).body).toEqual({ experiments: [created.body] });
    expect((await readOnly.get(`${s.base}/${id}`)).body).toEqual(created.body);
    expect((await readOnly.get(`${s.base}/999999`)).status).toBe(404);

    const edited = await api.put(`${s.base}/${id}`, { name: 'Pro at 35' });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).toMatchObject({ name: 'Pro at 35', variants: created.body.variants });

    const start = await api.post(`${s.base}/${id}/start`);
    expect(start.status, start.text).toBe(200);
    expect(start.body).toMatchObject({ status: 'running', startedAt: expect.any(String), stoppedAt: null });
    expect((await api.put(`${s.base}/${id}`, { name: 'Late' })).status).toBe(409);
    expect((await api.post(`${s.base}/${id}/start`)).status).toBe(409);

    const stop = await api.post(`${s.base}/${id}/stop`);
    expect(stop.status, stop.text).toBe(200);
    expect(stop.body).toMatchObject({ status: 'stopped', stoppedAt: expect.any(String) });
    expect((await api.post(`${s.base}/${id}/stop`)).status).toBe(409);
    expect((await api.post(`${s.base}/${id}/start`)).status).toBe(409);
    expect((await api.put(`${s.base}/${id}`, { name: 'Later' })).status).toBe(409);

    const changes = (await readOnly.get(`/api/v1/projects/${s.project.slug}/changes`)).body.changes;
    const mine = changes.filter((c: any) => c.resource.type === 'experiment');
    expect(mine.map((c: any) => [c.action, c.after?.status])).toEqual([
      ['update', 'stopped'],
      ['update', 'running'],
      ['update', 'draft'],
      ['create', 'draft'],
    ]);
    expect(mine[3]).toMatchObject({ resource: { type: 'experiment', id }, before: null });
  });

  test('Idempotency-Key: a resent create or start is replayed, not done twice', async () => {
    const s = await shop();
    const headers = { 'idempotency-key': 'create-once' };
    const first = await api.post(s.base, priceTest(s), { headers });
    const again = await api.post(s.base, priceTest(s), { headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await api.get(s.base)).body.experiments).toHaveLength(1);
    const start = { headers: { 'idempotency-key': 'start-once' } };
    expect((await api.post(`${s.base}/${first.body.id}/start`, undefined, start)).status).toBe(200);
    expect((await api.post(`${s.base}/${first.body.id}/start`, undefined, start)).status).toBe(200);
  });

  test('one running experiment a project: a second start is 409, also when sent at once', async () => {
    const s = await shop();
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await api.post(s.base, priceTest(s))).body.id);
    const starts = await Promise.all(ids.map((id) => api.post(`${s.base}/${id}/start`)));
    expect(starts.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    const running = (await api.get(s.base)).body.experiments.filter((e: any) => e.status === 'running');
    expect(running).toHaveLength(1);
    await api.post(`${s.base}/${running[0].id}/stop`);
    const next = ids.find((id) => id !== running[0].id) as number;
    expect((await api.post(`${s.base}/${next}/start`)).status).toBe(200);
  });

  test('bad input', async () => {
    const s = await shop();
    const other = await shop();
    const variant = (key: string, weight: unknown, plans: unknown[] = []) => ({ key, weight, plans });
    const cases: [unknown, number][] = [
      [{ name: 'x', variants: [variant('a', 0), variant('b', 1)] }, 400],
      [{ name: 'x', variants: [variant('a', 1.5), variant('b', 1)] }, 400],
      [{ name: 'x', variants: [variant('a', -1), variant('b', 1)] }, 400],
      [{ name: 'x', variants: [variant('a', '1'), variant('b', 1)] }, 400],
      [{ name: 'x', variants: [{ key: 'a', plans: [] }, variant('b', 1)] }, 400],
      [{ name: 'x', variants: [variant('a', 1)] }, 400],
      [{ name: 'x', variants: ['a', 'b', 'c', 'd', 'e'].map((k) => variant(k, 1)) }, 400],
      [{ name: 'x', variants: [variant('a', 1), variant('a', 1)] }, 400],
      [{ name: 'x', variants: [variant('A', 1), variant('b', 1)] }, 400],
      [{ name: 'x', variants: [variant('a', 1), variant('b', 1, [{ planId: s.pro.id, basePrice: -1 }])] }, 400],
      [{ name: 'x', variants: [variant('a', 1), variant('b', 1, [{ planId: s.pro.id, price: 5 }])] }, 400],
      [{ name: 'x', variants: [variant('a', 1), variant('b', 1, [{ planId: 999999, basePrice: 5 }])] }, 404],
      [{ name: 'x', variants: [variant('a', 1), variant('b', 1, [{ planId: other.pro.id, basePrice: 5 }])] }, 404],
      [{ variants: [variant('a', 1), variant('b', 1)] }, 400],
    ];
    for (const [body, status] of cases) {
      const response = await api.post(s.base, body);
      expect(response.status, `${JSON.stringify(body)} → ${response.text}`).toBe(status);
    }
    expect((await readOnly.post(s.base, priceTest(s))).status).toBe(403);
    expect((await api.get(s.base)).body.experiments).toEqual([]);
    const id = await started(s);
    for (const bad of ['bad id!', 'x'.repeat(65), '']) {
      const response = await visitor.get(`/api/share/${s.project.shareId}?visitor=${encodeURIComponent(bad)}`);
      expect(response.status, bad).toBe(400);
    }
    expect((await visitor.post(`/api/share/${s.project.shareId}/views`, { visitor: 'bad id!' })).status).toBe(400);
    expect((await visitor.post(`/api/share/${s.project.shareId}/views`, {})).status).toBe(400);
    const checkout = { shareId: s.project.shareId, planId: s.pro.id };
    for (const bad of ['bad id!', 'x'.repeat(65), '', 7]) {
      expect((await visitor.post('/api/payments/checkout', { ...checkout, visitor: bad })).status, String(bad)).toBe(
        400,
      );
    }
    // A page that never ran an experiment: a view is 204 and counts nothing.
    expect((await visitor.post(`/api/share/${other.project.shareId}/views`, { visitor: 'v1' })).status).toBe(204);
    expect(await countItemsOf(other)).toEqual([]);
    expect((await readOnly.get(`${s.base}/999999/results`)).status).toBe(404);
    expect((await visitor.post(`/api/share/${'Z'.repeat(20)}/views`, { visitor: 'v1' })).status).toBe(404);
    await api.post(`${s.base}/${id}/stop`);
    expect((await visitor.post(`/api/share/${s.project.shareId}/views`, { visitor: 'v1' })).status).toBe(204);
    const results = (await api.get(`${s.base}/${id}/results`)).body;
    expect(results.variants.map((v: any) => v.visitors)).toEqual([0, 0]);
  });
});

describe('assignment and prices', () => {
  test('sticky and split by the weights over 1,000 visitor ids (binomial tolerance)', async () => {
    const s = await shop();
    await started(s, [1, 3]);
    const ids = visitorIds(1_000);
    const first = await inParallel(ids, 8, (id) => variantOf(s, id));
    const inB = first.filter((v) => v === 'b').length;
    // Binomial(1000, 0.75): mean 750, sd 13.7; 4.5 sd either side fails a correct split once in 150,000 runs.
    expect(Math.abs(inB - 750)).toBeLessThan(4.5 * Math.sqrt(1_000 * 0.75 * 0.25));
    const again = await inParallel(ids.slice(0, 100), 8, (id) => variantOf(s, id));
    expect(again).toEqual(first.slice(0, 100));
  }, 120_000);

  test('the share answer: the variant for a visitor (private), the control for everyone without one (public, the experiment named in a header), as before without an experiment', async () => {
    const s = await shop();
    const path = `/api/share/${s.project.shareId}`;
    const before = await visitor.get(path);
    const etag = before.headers.get('etag') as string;
    expect(before.headers.get('pricing-experiment')).toBeNull();
    const withVisitor = await visitor.get(`${path}?visitor=abc`);
    // No experiment runs: a visitor id changes nothing, caching included.
    expect(withVisitor.body).toEqual(before.body);
    expect(withVisitor.headers.get('cache-control')).toBe('public, max-age=30');
    expect(withVisitor.headers.get('etag')).toBe(etag);
    expect((await visitor.get(path, { headers: { 'if-none-match': etag } })).status).toBe(304);

    const id = await started(s);
    const ids = visitorIds(40);
    const variants = await inParallel(ids, 8, (v) => variantOf(s, v));
    const inA = ids[variants.indexOf('a')] as string;
    const inB = ids[variants.indexOf('b')] as string;
    const b = await visitor.get(`${path}?visitor=${inB}`);
    expect(b.headers.get('cache-control')).toBe('private, no-store');
    expect(b.body.experiment).toEqual({ id, variant: 'b' });
    expect(b.body.plans.find((p: any) => p.id === s.pro.id)).toMatchObject({ basePrice: 39, freemiumDay: 14 });
    const a = await visitor.get(`${path}?visitor=${inA}`);
    expect(a.body.experiment).toEqual({ id, variant: 'a' });
    expect(a.body.plans.find((p: any) => p.id === s.pro.id)).toMatchObject({ basePrice: 29, freemiumDay: 0 });
    // A variant named in the query is not the visitor's to choose.
    expect((await visitor.get(`${path}?visitor=${inA}&variant=b`)).body.experiment.variant).toBe('a');
    // Without a visitor: the control's plans, cacheable and the same for everyone, the body as
    // without an experiment; a header names the experiment so the widget asks again.
    const anonymous = await visitor.get(path);
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get('cache-control')).toBe('public, max-age=30');
    expect(anonymous.headers.get('pricing-experiment')).toBe(String(id));
    expect(anonymous.body).toEqual(before.body);
    expect(anonymous.headers.get('etag')).toBe(etag);
    const again = await visitor.get(path, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('cache-control')).toBe('public, max-age=30');
    expect(again.headers.get('pricing-experiment')).toBe(String(id));
    expect(b.headers.get('pricing-experiment')).toBeNull();

    await api.post(`${s.base}/${id}/stop`);
    const after = await visitor.get(`${path}?visitor=${inB}`);
    expect(after.body).toEqual(before.body);
    expect(after.headers.get('etag')).toBe(etag);
    expect(after.headers.get('cache-control')).toBe('public, max-age=30');
    const anonymousAfter = await visitor.get(path);
    expect(anonymousAfter.body).toEqual(before.body);
    expect(anonymousAfter.headers.get('etag')).toBe(etag);
    expect(anonymousAfter.headers.get('pricing-experiment')).toBeNull();
  });

  test("checkout charges the visitor's variant price, as the fake Stripe received it, with the experiment in the metadata", async () => {
    const s = await shop();
    const id = await started(s);
    const ids = visitorIds(40);
    const variants = await inParallel(ids, 8, (v) => variantOf(s, v));
    const sent: Record<string, any> = {};
    for (const key of ['a', 'b']) {
      const visitorId = ids[variants.indexOf(key)] as string;
      const response = await visitor.post('/api/payments/checkout', {
        shareId: s.project.shareId,
        planId: s.pro.id,
        visitor: visitorId,
      });
      expect(response.status, response.text).toBe(200);
      sent[key] = fake.lastSessionCreate()?.body;
    }
    expect(sent.a.line_items[0].price_data.unit_amount).toBe('2900');
    expect(sent.b.line_items[0].price_data.unit_amount).toBe('3900');
    expect(sent.b.subscription_data.trial_period_days).toBe('14');
    expect(sent.a.subscription_data.trial_period_days).toBeUndefined();
    for (const key of ['a', 'b']) {
      expect(sent[key].metadata).toMatchObject({ experimentId: String(id), variant: key });
      expect(sent[key].subscription_data.metadata).toMatchObject({ experimentId: String(id), variant: key });
    }
    // A forged variant (and experiment) is ignored: the visitor's own variant is charged and recorded.
    const inA = ids[variants.indexOf('a')] as string;
    const forged = await visitor.post('/api/payments/checkout', {
      shareId: s.project.shareId,
      planId: s.pro.id,
      visitor: inA,
      variant: 'b',
      experimentId: id + 1,
    });
    expect(forged.status, forged.text).toBe(200);
    const charged = fake.lastSessionCreate()?.body as any;
    expect(charged.line_items[0].price_data.unit_amount).toBe('2900');
    expect(charged.subscription_data.trial_period_days).toBeUndefined();
    for (const metadata of [charged.metadata, charged.subscription_data.metadata]) {
      expect(metadata).toMatchObject({ experimentId: String(id), variant: 'a', variantBasePrice: '29' });
    }
    // Every other unknown field is still a 400, and nothing reaches Stripe.
    const count = fake.requests.length;
    const priced = await visitor.post('/api/payments/checkout', {
      shareId: s.project.shareId,
      planId: s.pro.id,
      visitor: inA,
      basePrice: 1,
    });
    expect(priced.status).toBe(400);
    expect(priced.body.error.details).toContainEqual({ path: 'basePrice', message: 'unknown field "basePrice"' });
    expect(fake.requests.length).toBe(count);
    // Without a visitor id, the control's price and no experiment.
    await visitor.post('/api/payments/checkout', { shareId: s.project.shareId, planId: s.pro.id });
    const plain = fake.lastSessionCreate()?.body as any;
    expect(plain.line_items[0].price_data.unit_amount).toBe('2900');
    expect(plain.metadata.experimentId).toBeUndefined();
  });
});

describe('visibility overrides', () => {
  test('a variant hides a plan and shows a hidden one: its visitors see and buy its plans only', async () => {
    const s = await shop();
    const secret = await makePlan(api, s.project.slug, { name: 'Secret', basePrice: 49, isVisible: false });
    const created = await api.post(s.base, {
      name: 'Team or Secret',
      variants: [
        { key: 'a', weight: 1 },
        {
          key: 'b',
          weight: 1,
          plans: [
            { planId: s.team.id, isVisible: false },
            { planId: secret.id, isVisible: true },
          ],
        },
      ],
    });
    expect(created.status, created.text).toBe(201);
    expect((await api.post(`${s.base}/${created.body.id}/start`)).status).toBe(200);
    const ids = visitorIds(40);
    const variants = await inParallel(ids, 8, (v) => variantOf(s, v));
    const shown = async (v: string) =>
      (await visitor.get(`/api/share/${s.project.shareId}?visitor=${v}`)).body.plans.map((p: any) => p.id);
    const buy = (v: string, planId: number) =>
      visitor.post('/api/payments/checkout', { shareId: s.project.shareId, planId, visitor: v });
    const inA = ids[variants.indexOf('a')] as string;
    const inB = ids[variants.indexOf('b')] as string;
    expect(await shown(inA)).toEqual([s.pro.id, s.team.id]);
    expect(await shown(inB)).toEqual([s.pro.id, secret.id]);
    expect((await buy(inA, secret.id)).status).toBe(404);
    expect((await buy(inB, s.team.id)).status).toBe(404);
    expect((await buy(inA, s.team.id)).status).toBe(200);
    const team = fake.lastSessionCreate()?.body as any;
    expect(team.line_items[0].price_data.unit_amount).toBe('9900');
    expect((await buy(inB, secret.id)).status).toBe(200);
    const hidden = fake.lastSessionCreate()?.body as any;
    expect(hidden.metadata).toMatchObject({ planId: String(secret.id), variant: 'b' });
  }, 60_000);
});

describe('exact counts and results', () => {
  test('20 concurrent senders: every visitor counted once; checkouts and paid subscriptions once; results by Wilson', async () => {
    const s = await shop();
    const id = await started(s);
    // 36 visitors, split 1:1: fewer than the 3 buyers of a or 5 of b once in a million runs.
    const ids = visitorIds(36);
    const variants = await inParallel(ids, 8, (v) => variantOf(s, v));
    // 20 senders, each sending every visitor's view (in its own order), so each is sent 20 times at once.
    await Promise.all(
      Array.from({ length: 20 }, async (_, sender) => {
        const order = [...ids.slice(sender % ids.length), ...ids.slice(0, sender % ids.length)];
        for (const v of order) {
          const response = await viewFrom(`127.0.30.${sender + 2}`, s, v);
          expect(response.status).toBe(204);
        }
      }),
    );
    const expected = { a: variants.filter((v) => v === 'a').length, b: variants.filter((v) => v === 'b').length };

    // Checkouts: one per session, a resend with the same Idempotency-Key is the same session.
    const buyers = {
      a: ids.filter((_, i) => variants[i] === 'a').slice(0, 3),
      b: ids.filter((_, i) => variants[i] === 'b').slice(0, 5),
    };
    const sessions: { key: 'a' | 'b'; sessionId: string; visitor: string }[] = [];
    for (const key of ['a', 'b'] as const) {
      for (const v of buyers[key]) {
        const body = { shareId: s.project.shareId, planId: s.pro.id, visitor: v, customerId: `cust-${v}` };
        const headers = { 'idempotency-key': `checkout-${v}` };
        const first = await visitor.post('/api/payments/checkout', body, { headers });
        const again = await visitor.post('/api/payments/checkout', body, { headers });
        expect(again.body.sessionId).toBe(first.body.sessionId);
        sessions.push({ key, sessionId: first.body.sessionId, visitor: v });
      }
    }

    // Paid subscriptions: completed sessions; every event delivered twice, created and updated both active.
    const paid = { a: 0, b: 0 };
    for (const session of sessions.slice(0, sessions.length - 1)) {
      fake.complete(session.sessionId);
      const stored = fake.sessions.get(session.sessionId) as any;
      const subscription = fake.subscriptions.get(stored.subscription) as any;
      expect(subscription, 'fake Stripe made the subscription').toBeDefined();
      const object = JSON.parse(JSON.stringify(subscription));
      if (session.key === 'b') {
        // The variant's 14 days' trial: paid once the trial ends.
        expect(object.status).toBe('trialing');
        const trialing = stripeEvent('customer.subscription.created', object);
        expect((await deliver(visitor, s.project.shareId, trialing, s.webhookSecret)).status).toBe(200);
        object.status = 'active';
      }
      const created = stripeEvent('customer.subscription.updated', object);
      const updated = stripeEvent('customer.subscription.updated', object);
      for (const event of [created, updated, created]) {
        const response = await deliver(visitor, s.project.shareId, event, s.webhookSecret);
        expect(response.status, response.text).toBe(200);
      }
      paid[session.key]++;
    }
    const customer = await api.get(`/api/v1/projects/${s.project.slug}/customers/cust-${sessions[0]?.visitor}`);
    expect(customer.body.subscription.experiment).toEqual({ id, variant: 'a', basePrice: 29 });

    const results = await readOnly.get(`${s.base}/${id}/results`);
    expect(results.status, results.text).toBe(200);
    const byKey = Object.fromEntries(results.body.variants.map((v: any) => [v.key, v]));
    for (const key of ['a', 'b'] as const) {
      const v = byKey[key];
      expect(v.visitors).toBe(expected[key]);
      expect(v.checkouts).toBe(buyers[key].length);
      expect(v.subscriptions).toBe(paid[key]);
      expect(v.mrr).toBeCloseTo(paid[key] * (key === 'a' ? 29 : 39), 6);
      expect(v.mrrPerVisitor).toBeCloseTo(v.mrr / v.visitors, 9);
      expect(v.conversion).toBeCloseTo(paid[key] / expected[key], 12);
      const [low, high] = independentWilson(paid[key], expected[key]);
      expect(v.conversionLow).toBeCloseTo(low, 9);
      expect(v.conversionHigh).toBeCloseTo(high, 9);
    }
    const p = results.body.probabilityBest;
    expect(p.a + p.b).toBeCloseTo(1, 9);
    // Same counts, same answer: the estimate is seeded.
    expect((await readOnly.get(`${s.base}/${id}/results`)).body).toEqual(results.body);
    // Keys DynamoDB hands back unprocessed, twice in a row, are read again, not counted as zero.
    let handedBack = 0;
    const send = DynamoDBDocumentClient.prototype.send as (this: unknown, command: unknown) => Promise<any>;
    const spy = vi.spyOn(DynamoDBDocumentClient.prototype, 'send').mockImplementation(async function (
      this: unknown,
      command: any,
    ) {
      if (!(command instanceof BatchGetCommand) || handedBack === 2) return send.call(this, command);
      handedBack++;
      const [table, request] = Object.entries(command.input.RequestItems ?? {})[0] as [string, any];
      const [first, ...rest] = request.Keys;
      const output = await send.call(
        this,
        new BatchGetCommand({ RequestItems: { [table]: { ...request, Keys: [first] } } }),
      );
      return { ...output, UnprocessedKeys: { [table]: { ...request, Keys: rest } } };
    } as any);
    expect((await readOnly.get(`${s.base}/${id}/results`)).body).toEqual(results.body);
    spy.mockRestore();
    expect(handedBack).toBe(2);

    // Stopped, and the plan repriced: each customer still holds the price it bought in its variant.
    expect((await api.post(`${s.base}/${id}/stop`)).status).toBe(200);
    expect((await api.put(`/api/v1/projects/${s.project.slug}/plans/${s.pro.id}`, { basePrice: 35 })).status).toBe(200);
    const inB = sessions.find((x) => x.key === 'b') as { visitor: string };
    const bCustomer = await api.get(`/api/v1/projects/${s.project.slug}/customers/cust-${inB.visitor}`);
    expect(bCustomer.body.subscription).toMatchObject({
      planVersion: 1,
      experiment: { id, variant: 'b', basePrice: 39 },
    });
    const dryRun = await api.post(`/api/v1/projects/${s.project.slug}/plans/${s.pro.id}/migrate`, { dryRun: true });
    expect(dryRun.status, dryRun.text).toBe(200);
    const before = Object.fromEntries(dryRun.body.customers.map((c: any) => [c.customerId, c.monthlyBefore]));
    expect(before[`cust-${inB.visitor}`]).toBe(39);
    expect(before[`cust-${sessions[0]?.visitor}`]).toBe(29);
    expect(dryRun.body.customers.every((c: any) => c.monthlyAfter === 35)).toBe(true);
  }, 120_000);
});

describe('a project delete', () => {
  /** The project's experiment counts (markers and tallies) and every item of its partition. */
  async function leftOf(s: Shop) {
    const counts = await countItemsOf(s);
    const partition = await itemsOfProject(ownerId, s.project.slug, s.project.shareId);
    return [...counts, ...partition];
  }

  test('views sent during the delete and its sweep leave no item of the project', async () => {
    const s = await shop();
    const id = await started(s);
    let sending = true;
    const statuses = new Set<number>();
    let sent = 0;
    // 10 senders of new visitors, before, during and after the delete and its sweep.
    const senders = Array.from({ length: 10 }, async (_, sender) => {
      for (let i = 0; sending; i++) {
        statuses.add((await viewFrom(`127.0.31.${sender + 2}`, s, `race${sender}_${i}`)).status);
        sent++;
      }
    });
    while (sent < 30) await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await api.delete(`/api/v1/projects/${s.project.slug}`)).status).toBe(200);
    await sweepsFinished(ownerId);
    await new Promise((resolve) => setTimeout(resolve, 300));
    sending = false;
    await Promise.all(senders);
    expect([...statuses].every((status) => status === 204 || status === 404)).toBe(true);
    expect(statuses.has(404)).toBe(true);
    // The worst interleaving, made certain: a count of a view that read the project before
    // the delete, written after the sweep finished.
    expect(await countOnce(s.project.id, 3, id, 'visitor', 'late', 'a', { visitors: 1 })).toBe('already');
    expect(await leftOf(s)).toEqual([]);
  }, 120_000);
});

/**
 * The Wilson score interval as Wilson wrote it: the roots in p of (p̂ − p)² = z² p (1 − p) / n,
 * solved as a quadratic (not the centre ± half-width form the service uses).
 */
function independentWilson(successes: number, trials: number): [number, number] {
  const z = 1.959963984540054;
  const phat = successes / trials;
  const a = 1 + (z * z) / trials;
  const b = -(2 * phat + (z * z) / trials);
  const c = phat * phat;
  const root = Math.sqrt(b * b - 4 * a * c);
  return [(-b - root) / (2 * a), (-b + root) / (2 * a)];
}
