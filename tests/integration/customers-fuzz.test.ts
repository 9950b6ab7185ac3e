import fc from 'fast-check';
import { beforeAll, expect, test, vi } from 'vitest';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';
import { deliver, newWebhookSecret, stripeEvent } from '../fixtures/stripe-events.ts';

/** The new bodies (a grant, a signed Stripe event of any shape, list queries) never make a 5xx. */
vi.hoisted(() => {
  process.env.PROJECT_CACHE_TTL_SECONDS = '0';
});

const server = useLocalServer();
let api: ApiClient;
let visitor: ApiClient;
let project: { slug: string; shareId: string; id: number };
let planId: number;
let secret: string;

beforeAll(async () => {
  api = server.client((await newOwner('customers-fuzz')).writeKey);
  visitor = server.client();
  secret = newWebhookSecret();
  project = await makeProject(api, { paymentWebhookSecret: secret });
  const feature = await makeFeature(api, project.slug, { isCountable: true, usageCount: 3 });
  planId = (await makePlan(api, project.slug, { features: [{ featureId: feature.id }] })).id;
});

const anyValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(1, 2, -1, 0, 1.5, 1e308, '', 'active', 'trialing', null, '2030-01-01T00:00:00Z', 'a@b.co'),
);
const fieldName = fc.constantFrom('planId', 'status', 'seats', 'email', 'currentPeriodEnd', '__proto__', 'plan');

test('PUT grant bodies: 200, 400 or 404, never a 5xx', { timeout: 120_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.dictionary(fieldName, anyValue, { maxKeys: 5 }),
      fc.stringMatching(/^[A-Za-z0-9._:@-]{1,8}$/),
      async (body, id) => {
        const response = await api.put(`/api/v1/projects/${project.slug}/customers/${id}`, { planId, ...body });
        expect([200, 400, 404], response.text).toContain(response.status);
      },
    ),
    { numRuns: 40 },
  );
});

test('signed events of any shape: 200 or 400, never a 5xx', { timeout: 120_000 }, async () => {
  const type = fc.constantFrom(
    'checkout.session.completed',
    'customer.subscription.created',
    'customer.subscription.updated',
    'customer.subscription.deleted',
    'invoice.paid',
  );
  const metadata = fc.record(
    {
      projectId: fc.constantFrom(String(project.id), 'x', ''),
      planId: fc.oneof(fc.constantFrom(String(planId), '0', '1e3', '99999999999999999'), fc.string()),
      customerId: fc.oneof(fc.string({ maxLength: 140 }), fc.constant('user_1')),
      featureDetails_0: fc.oneof(fc.string(), fc.constant('[{"id":1,"name":"x","quantity":2,"price":1}]')),
      seats: fc.oneof(fc.string(), fc.constant('3')),
    },
    { requiredKeys: ['projectId'] },
  );
  const object = fc.record(
    {
      id: fc.oneof(fc.string(), fc.constant('sub_1')),
      status: fc.oneof(fc.string(), fc.constantFrom('active', 'canceled', 'trialing')),
      customer: fc.oneof(fc.string(), fc.constant({ id: 'cus_1' }), fc.constant(null)),
      metadata: fc.oneof(metadata, fc.jsonValue({ maxDepth: 1 })),
      items: fc.oneof(
        fc.jsonValue({ maxDepth: 3 }),
        fc.constant({ data: [{ quantity: 2, current_period_end: 1e20 }] }),
      ),
      mode: fc.constantFrom('subscription', 'payment'),
      subscription: fc.oneof(fc.string(), fc.constant({ id: 'sub_2' })),
      client_reference_id: fc.oneof(fc.string(), fc.constant(null)),
    },
    { requiredKeys: [] },
  );
  await fc.assert(
    fc.asyncProperty(type, fc.oneof(object, fc.jsonValue({ maxDepth: 2 })), async (eventType, data) => {
      const response = await deliver(visitor, project.shareId, stripeEvent(eventType, data), secret);
      expect([200, 400], response.text).toContain(response.status);
    }),
    { numRuns: 60 },
  );
  const raw = await visitor.request('POST', `/api/payments/webhook/${project.shareId}`, {
    rawBody: '\u0000not json',
    headers: { 'content-type': 'text/plain', 'stripe-signature': 't=1,v1=00' },
  });
  expect(raw.status).toBe(400);
});

test('list queries: 200 or 400, never a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(fc.string({ maxLength: 20 }), fc.string({ maxLength: 500 }), async (limit, cursor) => {
      const query = new URLSearchParams({ limit, cursor }).toString();
      const response = await api.get(`/api/v1/projects/${project.slug}/customers?${query}`);
      expect([200, 400], response.text).toContain(response.status);
    }),
    { numRuns: 40 },
  );
});
