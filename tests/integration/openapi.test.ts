import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, test } from 'vitest';
import { getProjectItem } from '#db/projects.ts';
import { db } from '#db/service.ts';
import { deliveryIdOf, newEventId } from '#domain/webhooks-out/event-ids.ts';
import { routes } from '#functions/routes.ts';
import { type Group, routeKey } from '#shared/routes.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';
import { checkAnswer, checkedAnswers, DocumentMismatch } from '../fixtures/openapi-check.ts';

const committed = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
const server = useLocalServer();
let api: ApiClient;
let reader: ApiClient;
let ownerId: string;

/** A delivery as the dispatcher stores one, so that a retry has something to send again. */
async function storedDelivery(owner: string, slug: string, endpointId: number): Promise<string> {
  const project = await getProjectItem({ ownerId: owner, slug });
  const eventId = newEventId();
  await db()
    .entities.webhookDelivery.create({
      projectId: project?.projectId ?? 0,
      endpointId,
      eventId,
      type: 'customer.deleted',
      body: '{}',
      status: 'failed',
      attempts: 9,
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
    })
    .go();
  return deliveryIdOf(eventId);
}

beforeAll(async () => {
  const owner = await newOwner('openapi');
  ownerId = owner.ownerId;
  api = server.client(owner.writeKey);
  reader = server.client(owner.readKey);
});

describe('GET /openapi.json', () => {
  test('serves the committed document, publicly, with CORS, an ETag and gzip', async () => {
    const response = await server.client(null).get('/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.body).toEqual(committed);
    expect(response.body.openapi).toBe('3.1.0');

    const etag = response.headers.get('etag') ?? '';
    const again = await server.client(null).get('/openapi.json', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);

    const zipped = await fetch(`${server.url}/openapi.json`, { headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    // fetch inflates it.
    expect(await zipped.json()).toEqual(committed);
  });
});

describe('real answers match the document', () => {
  test('a representative run answers, on every v1 and share route, what the document says', async () => {
    const project = await makeProject(api, { name: 'Documented', currency: 'EUR', annualDiscount: 0.2 });
    const base = `/api/v1/projects/${project.slug}`;
    const sso = await makeFeature(api, project.slug, { name: 'SSO', basePrice: 10 });
    const events = await makeFeature(api, project.slug, { name: 'Events', isCountable: true, usageCount: 100 });
    const plan = await makePlan(api, project.slug, { name: 'Pro', features: [{ featureId: sso.id }] });

    // Every call below goes through ApiClient, which checks its answer against the document.
    const calls: [string, Promise<{ status: number }>][] = [
      ['list projects', reader.get('/api/v1/projects')],
      ['get project', reader.get(base)],
      [
        'update project',
        api.put(base, { theme: { primaryColor: '#000000' }, checkoutSuccessUrl: 'https://x.example/ok' }),
      ],
      ['list features', reader.get(`${base}/features`)],
      ['update feature', api.put(`${base}/features/${events.id}`, { countPrice: 0.01 })],
      ['list plans', reader.get(`${base}/plans`)],
      ['update plan', api.put(`${base}/plans/${plan.id}`, { isPerUserPricing: true })],
      ['plan features', reader.get(`${base}/plans/${plan.id}/features`)],
    ];
    for (const [name, call] of calls) expect((await call).status, name).toBeLessThan(300);

    // A customer: its grant, usage, the list, itself, its entitlements (all, one), a consume, its delete.
    const customer = `${base}/customers/c-1`;
    expect((await api.put(customer, { planId: plan.id })).status).toBeLessThan(300);
    const usage = { events: [{ eventId: 'e-1', customerId: 'c-1', featureId: events.id }] };
    expect((await api.post(`${base}/events`, usage)).status).toBe(200);
    for (const path of [
      `${base}/customers`,
      customer,
      `${customer}/entitlements`,
      `${customer}/entitlements/${sso.id}`,
    ]) {
      expect((await reader.get(path)).status, path).toBe(200);
    }
    const consumed = await api.post(`${customer}/entitlements/${events.id}/consume`, { eventId: 'e-2' });
    expect(consumed.status, consumed.text).toBe(200);
    expect((await api.delete(customer)).status).toBeLessThan(300);

    const added = await api.post(`${base}/plans/${plan.id}/features`, { featureId: events.id, multiplier: 2 });
    expect(added.status).toBe(200);
    expect((await api.put(`${base}/plans/${plan.id}/features/${events.id}`, { multiplier: 3 })).status).toBe(200);
    const copy = await api.post(`${base}/plans/${plan.id}/duplicate`);
    expect(copy.status).toBe(201);
    expect((await api.delete(`${base}/plans/${plan.id}/features?featureId=${events.id}`)).status).toBe(200);
    expect((await server.client(null).get(`/api/share/${project.shareId}`)).status).toBe(200);
    expect((await server.client(null).request('OPTIONS', `/api/share/${project.shareId}`)).status).toBe(204);
    expect((await server.client(null).get(`/demo/${project.shareId}`)).status).toBe(200);
    expect((await server.client(null).get('/widget.js')).status).toBe(200);
    expect((await server.client(null).get('/')).status).toBe(200);
    expect((await server.client(null).get('/health')).status).toBe(200);
    expect((await api.delete(`${base}/plans/${copy.body.id}`)).status).toBe(200);
    expect((await api.delete(`${base}/features/${sso.id}`)).status).toBe(200);
    const endpoint = await api.post(`${base}/webhook-endpoints`, { url: 'https://example.com/hooks' });
    expect(endpoint.status).toBe(201);
    const hook = `${base}/webhook-endpoints/${endpoint.body.id}`;
    expect((await reader.get(`${base}/webhook-endpoints`)).status).toBe(200);
    expect((await api.post(`${hook}/rotate-secret`)).status).toBe(200);
    expect((await reader.get(`${hook}/deliveries?limit=1`)).status).toBe(200);
    const delivery = await storedDelivery(ownerId, project.slug, endpoint.body.id);
    expect((await api.post(`${hook}/deliveries/${delivery}/retry`)).status).toBe(202);
    expect((await api.delete(hook)).status).toBe(200);
    const log = await reader.get(`${base}/changes?limit=2`);
    expect(log.status).toBe(200);
    const again = await reader.get(`${base}/changes?limit=2`, {
      headers: { 'if-none-match': log.headers.get('etag') ?? '' },
    });
    expect(again.status).toBe(304);
    const tagged = await reader.get(base);
    expect((await reader.get(base, { headers: { 'if-none-match': tagged.headers.get('etag') ?? '' } })).status).toBe(
      304,
    );
    expect((await api.put(base, { name: 'Stale' }, { headers: { 'if-match': '"stale"' } })).status).toBe(412);

    // Plan changes of a manual subscription, a customer token and its public calls.
    const changer = `${base}/customers/c-2`;
    const other = await makePlan(api, project.slug, { name: 'Other', basePrice: 1 });
    expect((await api.put(changer, { planId: other.id })).status).toBe(200);
    expect((await reader.get(`${base}/plans/${other.id}/versions`)).status).toBe(200);
    expect((await api.post(`${base}/plans/${other.id}/migrate`, { dryRun: true })).status).toBe(200);
    expect((await reader.post(`${changer}/subscription/preview`, { planId: plan.id })).status).toBe(200);
    expect((await api.post(`${changer}/subscription`, { planId: plan.id })).status).toBe(200);
    expect((await api.post(`${changer}/subscription/cancel`, {})).status).toBe(200);
    expect((await api.post(`${changer}/subscription/resume`)).status).toBe(200);
    expect((await api.post(`${changer}/portal`, {})).status).toBe(409);
    const token = await api.post(`${changer}/token`);
    expect(token.status).toBe(200);
    const visitor = server.client(null);
    const bearer = { headers: { authorization: `Bearer ${token.body.token}` } };
    const { shareId } = project;
    expect((await visitor.get(`/api/share/${shareId}/customer`, bearer)).status).toBe(200);
    expect(
      (await visitor.post('/api/payments/subscription/preview', { shareId, planId: other.id }, bearer)).status,
    ).toBe(200);
    expect((await visitor.post('/api/payments/subscription', { shareId, planId: other.id }, bearer)).status).toBe(200);
    expect((await visitor.post('/api/payments/subscription/cancel', { shareId }, bearer)).status).toBe(200);
    expect((await visitor.post('/api/payments/subscription/resume', { shareId }, bearer)).status).toBe(200);
    expect((await visitor.post('/api/payments/portal', { shareId }, bearer)).status).toBe(409);
    expect((await visitor.get(`/api/share/${shareId}/customer`)).status).toBe(401);
    for (const path of [
      `/api/share/${shareId}/customer`,
      '/api/payments/subscription/preview',
      '/api/payments/subscription',
      '/api/payments/subscription/cancel',
      '/api/payments/subscription/resume',
      '/api/payments/portal',
    ]) {
      expect((await visitor.request('OPTIONS', path)).status, path).toBe(204);
    }

    // A pricing experiment: its writes, reads and results, and a visitor's share read while it runs.
    const experiments = `${base}/experiments`;
    const experiment = await api.post(experiments, {
      name: 'Other at 2',
      variants: [
        { key: 'a', weight: 1 },
        { key: 'b', weight: 1, plans: [{ planId: other.id, basePrice: 2 }] },
      ],
    });
    expect(experiment.status, experiment.text).toBe(201);
    const test = `${experiments}/${experiment.body.id}`;
    expect((await api.put(test, { name: 'Other at 2!' })).status).toBe(200);
    expect((await reader.get(experiments)).status).toBe(200);
    expect((await reader.get(test)).status).toBe(200);
    expect((await api.post(`${test}/start`)).status).toBe(200);
    expect((await visitor.get(`/api/share/${shareId}?visitor=v-1`)).status).toBe(200);
    expect((await reader.get(`${test}/results`)).status).toBe(200);
    expect((await api.post(`${test}/stop`)).status).toBe(200);

    // Errors, each a documented status with the documented body.
    expect((await server.client(null).get(base)).status).toBe(401);
    expect((await reader.post(`${base}/features`, { name: 'x', basePrice: 1 })).status).toBe(403);
    expect((await api.post(`${base}/features`, { basePrice: 1 })).status).toBe(400);
    expect((await api.post('/api/v1/projects', { name: 'Again', slug: project.slug })).status).toBe(409);
    expect((await api.put(`${base}/plans/999999`, { name: 'x' })).status).toBe(404);
    expect((await api.request('PATCH', base)).status).toBe(405);
    expect((await api.get('/api/v1/nothing-here')).status).toBe(404);
    expect((await api.delete(base)).status).toBe(200);

    // Every route (the document's own included, above) was seen answering a success the
    // document lists, but those of the groups whose successes need Stripe: the suites named
    // here check their answers against the document (through ApiClient), with no such tally.
    const elsewhere: Partial<Record<Group, string>> = {
      payments: 'payments.test.ts, checkouts through a fake Stripe',
      webhooks: 'customers.test.ts, Stripe events signed with the project secret',
    };
    // A billing portal session needs a Stripe customer: plan-changes.test.ts, through a fake Stripe.
    const portals = ['POST /api/v1/projects/{slug}/customers/{customerId}/portal', 'POST /api/payments/portal'];
    const unseen = routes
      .filter((route) => !(route.group in elsewhere) && !portals.includes(routeKey(route)))
      .filter((route) => ![...checkedAnswers].some((seen) => seen.startsWith(`${routeKey(route)} 2`)))
      .map(routeKey);
    expect(unseen).toEqual([]);
  });

  test('an answer with a field added, renamed or missing does not match', async () => {
    const project = await makeProject(api, { name: 'Strict' });
    const answer = (body: unknown) => ({ status: 200, contentType: 'application/json', body });
    const where = `/api/v1/projects/${project.slug}`;
    expect(() => checkAnswer('GET', where, answer(project))).not.toThrow();
    expect(() => checkAnswer('GET', where, answer({ ...project, newField: 1 }))).toThrow(DocumentMismatch);
    const { shareId, ...renamed } = project;
    expect(() => checkAnswer('GET', where, answer({ ...renamed, shareID: shareId }))).toThrow(/shareId|shareID/);
    expect(() => checkAnswer('GET', where, answer({ ...project, isActive: 'yes' }))).toThrow(DocumentMismatch);
    expect(() => checkAnswer('GET', where, { ...answer(project), status: 418 })).toThrow(/418/);
    const error = { error: { code: 'not_found', message: 'x', stack: 'at ...' } };
    expect(() => checkAnswer('GET', where, { ...answer(error), status: 404 })).toThrow(DocumentMismatch);
  });
});
