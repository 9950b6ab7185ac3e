import { createHmac } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import type { Clock } from '#domain/ports.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { recordDynamoCalls } from '../fixtures/dynamo-calls.ts';
import { makePlan, makeProject } from '../fixtures/factories.ts';

/**
 * lifecycle.md §2: customer tokens reach one customer of one project for an hour, are verified
 * without a read, are never taken on v1; the public calls they open answer only for their
 * customer, with CORS, and count toward the public payment rate limit. The clock is the test's.
 */

/** Stands still until the test moves it. */
class TestClock implements Clock {
  ms = Date.now();
  now() {
    return this.ms;
  }
}
const clock = new TestClock();
const server = useLocalServer({ clock, webhooksOut: false });
const record = recordDynamoCalls();
let api: ApiClient;
let reader: ApiClient;
let visitor: ApiClient;
let project: { slug: string; shareId: string };
let other: { slug: string; shareId: string };
let basic: { id: number };
let pro: { id: number };
let hidden: { id: number };

beforeAll(async () => {
  const owner = await newOwner('tokens');
  api = server.client(owner.writeKey);
  reader = server.client(owner.readKey);
  visitor = server.client(null);
  project = await makeProject(api);
  other = await makeProject(api);
  basic = await makePlan(api, project.slug, { name: 'Basic', basePrice: 10 });
  pro = await makePlan(api, project.slug, { name: 'Pro', basePrice: 30 });
  hidden = await makePlan(api, project.slug, { name: 'Deal', basePrice: 5, isVisible: false });
  for (const id of ['alice', 'bob']) {
    expect((await api.put(`/api/v1/projects/${project.slug}/customers/${id}`, { planId: basic.id })).status).toBe(200);
  }
  await makePlan(api, other.slug, { name: 'Elsewhere', basePrice: 1 });
});

const mint = async (customerId: string, slug = project.slug) => {
  const res = await api.post(`/api/v1/projects/${slug}/customers/${customerId}/token`);
  expect(res.status, res.text).toBe(200);
  return res.body as { token: string; expiresAt: string };
};
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
const customerOf = (token: string, shareId = project.shareId) =>
  visitor.get(`/api/share/${shareId}/customer`, bearer(token));

describe('minting', () => {
  test('a token for a known customer, valid one hour; unknown customer 404, read key 403', async () => {
    const { token, expiresAt } = await mint('alice');
    expect(token).toMatch(/^pct_/);
    expect(Date.parse(expiresAt) - clock.now()).toBeGreaterThan(3590_000);
    expect(Date.parse(expiresAt) - clock.now()).toBeLessThanOrEqual(3600_000);
    expect((await api.post(`/api/v1/projects/${project.slug}/customers/nobody/token`)).status).toBe(404);
    expect((await reader.post(`/api/v1/projects/${project.slug}/customers/alice/token`)).status).toBe(403);
  });
});

describe('scope', () => {
  test("the token's customer only: its own subscription, whatever else is asked", async () => {
    const { token } = await mint('alice');
    const res = await customerOf(token);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      customerId: 'alice',
      planId: basic.id,
      planVersion: 1,
      pendingPlanId: null,
      status: 'active',
      billingInterval: null,
      seats: 1,
      cancelAtPeriodEnd: false,
      currentPeriodEnd: null,
    });
    // A change through alice's token changes alice, never bob.
    const changed = await visitor.post(
      '/api/payments/subscription',
      { shareId: project.shareId, planId: pro.id },
      bearer(token),
    );
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ customerId: 'alice', planId: pro.id });
    const bob = await api.get(`/api/v1/projects/${project.slug}/customers/bob`);
    expect(bob.body.subscription.planId).toBe(basic.id);
    // A visitor names only plans the page shows.
    const secret = await visitor.post(
      '/api/payments/subscription',
      { shareId: project.shareId, planId: hidden.id },
      bearer(token),
    );
    expect(secret.status).toBe(404);
    // A customerId in the body is not a field: 400, never another customer.
    const smuggled = await visitor.post(
      '/api/payments/subscription/cancel',
      { shareId: project.shareId, customerId: 'bob' },
      bearer(token),
    );
    expect(smuggled.status).toBe(400);
  });

  test("another project's page, an expired, forged or missing token: 401", async () => {
    const { token } = await mint('bob');
    expect((await customerOf(token, other.shareId)).status).toBe(401);
    expect((await customerOf(token, other.shareId)).body.error.code).toBe('unauthorized');
    const [prefix, claims, signature] = token.split('.') as [string, string, string];
    const forgedClaims = Buffer.from(JSON.stringify({ p: 1, c: 'bob', e: 9_999_999_999 })).toString('base64url');
    const keyId = prefix.slice('pct_'.length);
    const otherSecret = createHmac('sha256', 'not the key').update(`${keyId}.${claims}`).digest('base64url');
    for (const bad of [
      `${prefix}.${forgedClaims}.${signature}`,
      `${prefix}.${claims}.${otherSecret}`,
      `pct_nokey.${claims}.${signature}`,
      `${prefix}.${claims}.${signature.slice(0, -2)}AA`,
      'pct_garbage',
    ]) {
      expect((await customerOf(bad)).status, bad).toBe(401);
    }
    expect((await visitor.get(`/api/share/${project.shareId}/customer`)).status).toBe(401);
    // An hour later it has expired.
    clock.ms += 3600_000 + 1000;
    try {
      expect((await customerOf(token)).status).toBe(401);
    } finally {
      clock.ms -= 3600_000 + 1000;
    }
    expect((await customerOf(token)).status).toBe(200);
  });

  test('never accepted on v1', async () => {
    const { token } = await mint('bob');
    const res = await server.client(token).get(`/api/v1/projects/${project.slug}/customers/bob`);
    expect(res.status).toBe(401);
    expect((await server.client(token).get('/api/v1/projects')).status).toBe(401);
  });

  test('a token whose customer was deleted since: 401', async () => {
    expect((await api.put(`/api/v1/projects/${project.slug}/customers/carol`, { planId: basic.id })).status).toBe(200);
    const { token } = await mint('carol');
    expect((await customerOf(token)).status).toBe(200);
    expect((await api.delete(`/api/v1/projects/${project.slug}/customers/carol`)).status).toBe(200);
    expect((await customerOf(token)).status).toBe(401);
  });
});

describe('the public calls', () => {
  test("the customer read gets the token's customer once (the check that it still exists is the read)", async () => {
    const { token } = await mint('bob');
    await customerOf(token); // the shared project now cached
    const { result, calls } = await record(() => customerOf(token));
    expect(result.status, result.text).toBe(200);
    expect(calls.filter((call) => call.command === 'GetCommand')).toHaveLength(1);
  });

  test('preflights allow the Authorization header from any origin', async () => {
    for (const path of [
      `/api/share/${project.shareId}/customer`,
      '/api/payments/subscription/preview',
      '/api/payments/subscription',
      '/api/payments/subscription/cancel',
      '/api/payments/subscription/resume',
      '/api/payments/portal',
    ]) {
      const res = await visitor.request('OPTIONS', path, { headers: { origin: 'https://shop.example' } });
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(res.headers.get('access-control-allow-headers'), path).toMatch(/Authorization/);
    }
  });

  test('preview, cancel, resume and portal for the token customer (manual: owes 0, no portal)', async () => {
    expect((await api.put(`/api/v1/projects/${project.slug}/customers/dave`, { planId: pro.id })).status).toBe(200);
    const { token } = await mint('dave');
    const shareId = project.shareId;
    const preview = await visitor.post(
      '/api/payments/subscription/preview',
      { shareId, planId: basic.id },
      bearer(token),
    );
    expect(preview.body).toEqual({ amountDue: 0, currency: 'USD', nextPeriodAmount: 10, lines: [] });
    const cancel = await visitor.post('/api/payments/subscription/cancel', { shareId }, bearer(token));
    expect(cancel.body).toMatchObject({ customerId: 'dave', cancelAtPeriodEnd: true });
    const resume = await visitor.post('/api/payments/subscription/resume', { shareId }, bearer(token));
    expect(resume.body).toMatchObject({ cancelAtPeriodEnd: false });
    expect((await visitor.post('/api/payments/subscription/resume', { shareId }, bearer(token))).status).toBe(409);
    expect((await visitor.post('/api/payments/portal', { shareId }, bearer(token))).status).toBe(409);
  });

  test('count toward the public payment rate limit per client address and project', async () => {
    const shop = await makeProject(api);
    const plan = await makePlan(api, shop.slug, { name: 'Only', basePrice: 3 });
    expect((await api.put(`/api/v1/projects/${shop.slug}/customers/erin`, { planId: plan.id })).status).toBe(200);
    const { token } = await mint('erin', shop.slug);
    clock.ms += 120_000;
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await customerOf(token, shop.shareId)).status);
    expect(statuses.slice(0, 30).every((status) => status === 200)).toBe(true);
    const refused = await customerOf(token, shop.shareId);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    clock.ms += 61_000;
    expect((await customerOf(token, shop.shareId)).status).toBe(200);
  });
});
