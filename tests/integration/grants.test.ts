import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { pendingSweeps } from '#db/project-sweep.ts';
import { paymentRecordsKeyPrefix } from '#db/table.ts';
import { localMigrationsFor } from '#dev/local-migrations.ts';
import { type LocalServer, startLocalServer } from '#dev/local-server.ts';
import { type SweepQueue, systemClock } from '#domain/ports.ts';
import type { DeliveryRef } from '#domain/webhooks-out/delivery.ts';
import { newEventId } from '#domain/webhooks-out/event-ids.ts';
import { findRoute, type RouteKey, routes } from '#functions/routes.ts';
import { compose } from '#shared/composition.ts';
import { runtimeConfig } from '#shared/config.ts';
import { functionSpecs, type Worker } from '#shared/function-specs.ts';
import { stripeGatewayFor } from '#shared/payments/stripe.ts';
import { stripeWebhookVerifier } from '#shared/payments/stripe-webhooks.ts';
import { type Group, routeKey } from '#shared/routes.ts';
import { keyringFor } from '#shared/secrets/keyring.ts';
import { tokenKeysFor } from '#shared/secrets/token-keys.ts';
import { sweepMessageBody } from '#shared/sweeps/sqs-queue.ts';
import { createSweeper } from '../../functions/sweeper/worker.ts';
import { createWebhooksOutWorker } from '../../functions/webhooksOut/worker.ts';
import { paymentRecordActions, tableActions, tableActionsFor } from '../../infra/service-function.ts';
import { ApiClient, type ApiResponse, newOwner } from '../fixtures/api.ts';
import { spyOnDynamoSends } from '../fixtures/dynamo-calls.ts';
import { sqsRecord } from '../fixtures/fake-sqs.ts';
import { deliver, newWebhookSecret, stripeEvent, subscriptionObject } from '../fixtures/stripe-events.ts';

/**
 * The other half of least privilege: a grant missing from a function's spec is a 500 on AWS
 * that DynamoDB Local (which checks no IAM) never shows. Every DynamoDB call each function's
 * code makes, serving each route of the table and running each worker, is recorded here and
 * turned into the IAM action and resource it needs; each must be one the function's spec
 * grants (tests/infra checks the stacks grant the spec). The requests are made here, one at a
 * time, rather than recorded across the integration suite: a call is then known to be its
 * request's, and a route of the table that no request here serves fails the test by its name.
 */

// Before the handlers load: a fake Stripe for checkout, and no API key cache, so every
// authenticated request reads its key (the GetItem that every v1 group needs).
const { fake } = await vi.hoisted(async () => {
  const { startFakeStripe } = await import('#dev/fake-stripe/index.ts');
  const started = await startFakeStripe();
  process.env.STRIPE_API_BASE = started.url;
  process.env.STRIPE_TIMEOUT_MS = '1000';
  process.env.KEY_CACHE_TTL_SECONDS = '0';
  return { fake: started };
});

interface Call {
  command: string;
  input: Record<string, any>;
}

/** The calls of the request or worker run in flight, and every one's function and calls. */
let current: Call[] | undefined;
const made: { fn: Group | Worker; route?: RouteKey; calls: Call[] }[] = [];

/**
 * Deleted projects' sweeps wait here for the sweeper to be run below, so that no sweep runs
 * in the background of the server while a request is recorded.
 */
const held: number[] = [];
const sweeps: SweepQueue = {
  async enqueue(projectId) {
    held.push(projectId);
  },
};

let server: LocalServer;
let api: ApiClient;
let visitor: ApiClient;

beforeAll(async () => {
  const app = compose(runtimeConfig(), {
    keyring: keyringFor,
    payments: stripeGatewayFor,
    clock: () => systemClock,
    webhooks: stripeWebhookVerifier,
    tokenKeys: tokenKeysFor,
    sweeps: () => sweeps,
    migrations: localMigrationsFor,
  });
  server = await startLocalServer({ port: 0, app, webhooksOut: false });
  // Every DynamoDB client of this process (the handlers run in it, behind the local server).
  spyOnDynamoSends((call) => current?.push(call));
});

afterAll(async () => {
  vi.restoreAllMocks();
  await server?.close();
  await fake.close();
});

/** Runs `work` alone, with the DynamoDB calls it made recorded under `fn` (and `route`). */
async function recorded<T>(fn: Group | Worker, route: RouteKey | undefined, work: () => Promise<T>): Promise<T> {
  current = [];
  try {
    return await work();
  } finally {
    made.push({ fn, ...(route ? { route } : {}), calls: current });
    current = undefined;
  }
}

/** One request of the route `key`, alone, with the DynamoDB calls it made recorded under its group. */
async function hit(key: RouteKey, send: () => Promise<ApiResponse>, expected: number[] = [200]) {
  const route = findRoute(key);
  if (!route) throw new Error(`no route ${key}`);
  return recorded(route.group, key, async () => {
    const response = await send();
    expect(expected, `${key} → ${response.status} ${response.text.slice(0, 300)}`).toContain(response.status);
    return response;
  });
}

/** `dynamodb:Query on index/gsi1`: what IAM checks for one call, one entry per item action of a transaction. */
function needs({ command, input }: Call): string[] {
  const table = process.env.TABLE_NAME;
  const on = (action: string, tableName: unknown, index?: unknown) => {
    expect(tableName, `${command} on table ${String(tableName)}`).toBe(table);
    return `dynamodb:${action} on ${index ? `index/${String(index)}` : 'table'}`;
  };
  // DocumentClient commands and the low-level client's (the warm reads), by IAM action.
  switch (command) {
    // The low-level client's GetItem (the plan reads convert AttributeValues themselves).
    case 'GetCommand':
    case 'GetItemCommand':
      return [on('GetItem', input.TableName)];
    case 'QueryCommand':
      return [on('Query', input.TableName, input.IndexName)];
    case 'ScanCommand':
      return [on('Scan', input.TableName, input.IndexName)];
    case 'PutCommand':
    case 'PutItemCommand':
      return [on('PutItem', input.TableName)];
    case 'UpdateCommand':
    case 'UpdateItemCommand':
      return [on('UpdateItem', input.TableName)];
    case 'DeleteCommand':
    case 'DeleteItemCommand':
      return [on('DeleteItem', input.TableName)];
    case 'BatchWriteCommand':
    case 'BatchWriteItemCommand':
      return Object.keys(input.RequestItems).map((name) => on('BatchWriteItem', name));
    case 'BatchGetCommand':
    case 'BatchGetItemCommand':
      return Object.keys(input.RequestItems).map((name) => on('BatchGetItem', name));
    case 'TransactWriteCommand':
    case 'TransactWriteItemsCommand':
      return (input.TransactItems as Record<string, { TableName: string }>[]).flatMap((item) =>
        Object.entries(item).map(([kind, operation]) => {
          const action = {
            Put: 'PutItem',
            Update: 'UpdateItem',
            Delete: 'DeleteItem',
            ConditionCheck: 'ConditionCheckItem',
          }[kind];
          return on(action ?? `unknown transaction item ${kind}`, operation.TableName);
        }),
      );
    default:
      return [`dynamodb:unknown command ${command}`];
  }
}

/** The partition key of one item's key or item (an AttributeValue from the low-level client). */
function pkOf(keyOrItem: Record<string, any> | undefined): string | undefined {
  const pk = keyOrItem?.pk;
  return typeof pk === 'object' && pk !== null ? pk.S : pk;
}

/** The partition keys a call touches: its item's (GetItem, PutItem, UpdateItem), or each of a transaction's. */
function partitionsOf({ input }: Call): (string | undefined)[] {
  if (Array.isArray(input.TransactItems)) {
    return input.TransactItems.flatMap((item: Record<string, Record<string, any>>) =>
      Object.values(item).map((operation) => pkOf(operation.Key ?? operation.Item)),
    );
  }
  return [pkOf(input.Key ?? input.Item)];
}

/** What the function's spec grants, in the same form. */
function granted(fn: Group | Worker): Set<string> {
  const { table, indexes, paymentRecords } = functionSpecs[fn];
  return new Set([
    ...tableActionsFor(table).map((action) => `${action} on table`),
    ...(paymentRecords === 'none' ? [] : paymentRecordActions.map((action) => `${action} on table`)),
    ...indexes.flatMap((index) => tableActions.index.map((action) => `${action} on index/${index}`)),
  ]);
}

describe('every DynamoDB call a function makes is granted by its spec', () => {
  beforeAll(async () => {
    api = new ApiClient(server.url, (await newOwner('grants')).writeKey);
    visitor = new ApiClient(server.url);
    const urls = {
      checkoutTestSuccessUrl: 'https://shop.example/ok',
      checkoutTestCancelUrl: 'https://shop.example/no',
    };
    const paymentSecretKey = `sk_test_${'g'.repeat(24)}`;

    // projects: create (sealing a key; explicit and derived slugs), list, read, update.
    const created = await hit(
      'POST /api/v1/projects',
      () => api.post('/api/v1/projects', { name: 'Grants', slug: 'grants', paymentSecretKey, ...urls }),
      [201],
    );
    await hit('POST /api/v1/projects', () => api.post('/api/v1/projects', { name: 'Grants' }), [201]);
    await hit('GET /api/v1/projects', () => api.get('/api/v1/projects'));
    await hit('GET /api/v1/projects/{slug}', () => api.get('/api/v1/projects/grants'));
    await hit('PUT /api/v1/projects/{slug}', () =>
      api.put('/api/v1/projects/grants', { name: 'Grants 2', paymentSecretKey }),
    );
    const { shareId } = created.body;

    // features: create, list, update, delete.
    const feature = (name: string) =>
      hit(
        'POST /api/v1/projects/{slug}/features',
        () => api.post('/api/v1/projects/grants/features', { name, basePrice: 2 }),
        [201],
      );
    const [a, b, c] = [(await feature('A')).body.id, (await feature('B')).body.id, (await feature('C')).body.id];
    // Countable ones, for usage events: a count, and a unique count (which keeps its properties).
    const countable = async (name: string, eventAggregationMethod: string) =>
      (
        await api.post('/api/v1/projects/grants/features', {
          name,
          basePrice: 1,
          isCountable: true,
          usageCount: 10,
          eventAggregationMethod,
        })
      ).body.id as number;
    const [calls, users] = [await countable('Calls', 'count'), await countable('Users', 'unique_count')];
    await hit('GET /api/v1/projects/{slug}/features', () => api.get('/api/v1/projects/grants/features'));
    await hit('PUT /api/v1/projects/{slug}/features/{featureId}', () =>
      api.put(`/api/v1/projects/grants/features/${a}`, { description: 'changed' }),
    );

    // plans: create with features, list, update, duplicate, and the assignments.
    const plan = await hit(
      'POST /api/v1/projects/{slug}/plans',
      () =>
        api.post('/api/v1/projects/grants/plans', {
          name: 'Pro',
          basePrice: 10,
          features: [{ featureId: a }, { featureId: c }, { featureId: calls }, { featureId: users }],
        }),
      [201],
    );
    const planId = plan.body.id;
    const base = `/api/v1/projects/grants/plans/${planId}`;
    await hit('GET /api/v1/projects/{slug}/plans', () => api.get('/api/v1/projects/grants/plans'));
    await hit('PUT /api/v1/projects/{slug}/plans/{planId}', () => api.put(base, { description: 'changed' }));
    const copy = await hit(
      'POST /api/v1/projects/{slug}/plans/{planId}/duplicate',
      () => api.post(`${base}/duplicate`),
      [201],
    );
    await hit('GET /api/v1/projects/{slug}/plans/{planId}/features', () => api.get(`${base}/features`));
    await hit('POST /api/v1/projects/{slug}/plans/{planId}/features', () =>
      api.post(`${base}/features`, { features: [{ featureId: b }] }),
    );
    await hit('PUT /api/v1/projects/{slug}/plans/{planId}/features/{featureId}', () =>
      api.put(`${base}/features/${b}`, { multiplier: 2 }),
    );
    await hit('GET /api/v1/projects/{slug}/plans/{planId}/versions', () => api.get(`${base}/versions`));
    await hit('POST /api/v1/projects/{slug}/plans/{planId}/migrate', () =>
      api.post(`${base}/migrate`, { dryRun: true }),
    );
    await hit('POST /api/v1/projects/{slug}/plans/{planId}/migrate', () => api.post(`${base}/migrate`, {}), [202]);
    await hit('DELETE /api/v1/projects/{slug}/plans/{planId}/features', () =>
      api.delete(`${base}/features?featureId=${b}`),
    );

    // share: the public read, its preflight, the widget, the demo page, and no route at all.
    await hit('GET /api/share/{shareId}', () => visitor.get(`/api/share/${shareId}`));
    await hit('GET /openapi.json', () => visitor.get('/openapi.json'));
    await hit('OPTIONS /api/share/{shareId}', () => visitor.request('OPTIONS', `/api/share/${shareId}`), [200, 204]);
    await hit('GET /widget.js', () => visitor.get('/widget.js'));
    await hit('GET /demo/{shareId}', () => visitor.get(`/demo/${shareId}`));
    await hit('GET /', () => visitor.get('/'));
    await hit('GET /health', () => visitor.get('/health'));

    // payments: the preflights, both checkouts and receipts (of no session: a 404 without Stripe; of a real one).
    for (const key of [
      'OPTIONS /api/payments/checkout',
      'OPTIONS /api/payments/checkout/custom',
      'OPTIONS /api/payments/receipt',
    ] as const) {
      await hit(key, () => visitor.request('OPTIONS', key.slice('OPTIONS '.length)), [200, 204]);
    }
    await hit('POST /api/payments/checkout', () => visitor.post('/api/payments/checkout', { shareId, planId }));
    await hit('POST /api/payments/checkout/custom', () =>
      visitor.post('/api/payments/checkout/custom', { shareId, features: [{ featureId: a }] }),
    );
    await hit(
      'GET /api/payments/receipt',
      () => visitor.get(`/api/payments/receipt?session_id=cs_test_none&shareId=${shareId}`),
      [404],
    );
    const paid = await visitor.post('/api/payments/checkout', { shareId, planId });
    fake.complete(paid.body.sessionId);
    await hit('GET /api/payments/receipt', () =>
      visitor.get(`/api/payments/receipt?session_id=${paid.body.sessionId}&shareId=${shareId}`),
    );

    // customers: a grant, usage events, the list, one customer, its entitlements (all, one), a delete.
    const customers = '/api/v1/projects/grants/customers';
    await hit('PUT /api/v1/projects/{slug}/customers/{customerId}', () => api.put(`${customers}/u1`, { planId }));
    await hit('POST /api/v1/projects/{slug}/events', () =>
      api.post('/api/v1/projects/grants/events', {
        events: [
          { eventId: 'g-1', customerId: 'u1', featureId: calls },
          { eventId: 'g-2', customerId: 'u1', featureId: users, property: 'ada' },
        ],
      }),
    );
    await hit('GET /api/v1/projects/{slug}/customers', () => api.get(customers));
    await hit('GET /api/v1/projects/{slug}/customers/{customerId}', () => api.get(`${customers}/u1`));
    await hit('GET /api/v1/projects/{slug}/customers/{customerId}/entitlements', () =>
      api.get(`${customers}/u1/entitlements`),
    );
    await hit('GET /api/v1/projects/{slug}/customers/{customerId}/entitlements/{featureId}', () =>
      api.get(`${customers}/u1/entitlements/${a}`),
    );
    await hit('POST /api/v1/projects/{slug}/customers/{customerId}/entitlements/{featureId}/consume', () =>
      api.post(`${customers}/u1/entitlements/${calls}/consume`, { eventId: 'g-3' }),
    );
    await hit('DELETE /api/v1/projects/{slug}/customers/{customerId}', () => api.delete(`${customers}/u1`));
    await api.put(`${customers}/u2`, { planId });

    // plan changes (a manual subscription: the same table calls as a Stripe one's), the
    // portal (409: no Stripe customer), a token, and the token's public calls.
    await api.put(`${customers}/u4`, { planId });
    const copyId = copy.body.id;
    const sub = (tail: string) => `${customers}/u4${tail}`;
    await hit('POST /api/v1/projects/{slug}/customers/{customerId}/subscription/preview', () =>
      api.post(sub('/subscription/preview'), { planId: copyId }),
    );
    await hit('POST /api/v1/projects/{slug}/customers/{customerId}/subscription', () =>
      api.post(sub('/subscription'), { planId: copyId }),
    );
    await hit('POST /api/v1/projects/{slug}/customers/{customerId}/subscription/cancel', () =>
      api.post(sub('/subscription/cancel'), {}),
    );
    await hit('POST /api/v1/projects/{slug}/customers/{customerId}/subscription/resume', () =>
      api.post(sub('/subscription/resume')),
    );
    await hit('POST /api/v1/projects/{slug}/customers/{customerId}/portal', () => api.post(sub('/portal'), {}), [409]);
    const token = (
      await hit('POST /api/v1/projects/{slug}/customers/{customerId}/token', () => api.post(sub('/token')))
    ).body.token as string;
    const bearer = { headers: { authorization: `Bearer ${token}` } };
    await hit('GET /api/share/{shareId}/customer', () => visitor.get(`/api/share/${shareId}/customer`, bearer));
    await hit('POST /api/payments/subscription/preview', () =>
      visitor.post('/api/payments/subscription/preview', { shareId, planId }, bearer),
    );
    await hit('POST /api/payments/subscription', () =>
      visitor.post('/api/payments/subscription', { shareId, planId }, bearer),
    );
    await hit('POST /api/payments/subscription/cancel', () =>
      visitor.post('/api/payments/subscription/cancel', { shareId }, bearer),
    );
    await hit('POST /api/payments/subscription/resume', () =>
      visitor.post('/api/payments/subscription/resume', { shareId }, bearer),
    );
    await hit('POST /api/payments/portal', () => visitor.post('/api/payments/portal', { shareId }, bearer), [409]);
    for (const key of [
      'OPTIONS /api/share/{shareId}/customer',
      'OPTIONS /api/payments/subscription/preview',
      'OPTIONS /api/payments/subscription',
      'OPTIONS /api/payments/subscription/cancel',
      'OPTIONS /api/payments/subscription/resume',
      'OPTIONS /api/payments/portal',
    ] as const) {
      const path = key.slice('OPTIONS '.length).replace('{shareId}', shareId);
      await hit(key, () => visitor.request('OPTIONS', path), [200, 204]);
    }

    // webhooks: a signed event, applied to a customer.
    const secret = newWebhookSecret();
    await api.put('/api/v1/projects/grants', { paymentWebhookSecret: secret });
    const projectId = created.body.id;
    const event = stripeEvent(
      'customer.subscription.created',
      subscriptionObject({ projectId, planId, customerId: 'u3' }),
    );
    await hit('POST /api/payments/webhook/{shareId}', () => deliver(visitor, shareId, event, secret));

    // The deletes last: a feature (and its assignments), a plan, then the project's sweep.
    await hit('DELETE /api/v1/projects/{slug}/features/{featureId}', () =>
      api.delete(`/api/v1/projects/grants/features/${c}`),
    );
    await hit('DELETE /api/v1/projects/{slug}/plans/{planId}', () =>
      api.delete(`/api/v1/projects/grants/plans/${copy.body.id}`),
    );
    await hit('GET /api/v1/projects/{slug}/changes', () => api.get('/api/v1/projects/grants/changes'));
    const hooks = '/api/v1/projects/grants/webhook-endpoints';
    const endpoint = await hit(
      'POST /api/v1/projects/{slug}/webhook-endpoints',
      () => api.post(hooks, { url: 'https://example.com/hooks' }),
      [201],
    );
    await hit('GET /api/v1/projects/{slug}/webhook-endpoints', () => api.get(hooks));
    await hit('POST /api/v1/projects/{slug}/webhook-endpoints/{endpointId}/rotate-secret', () =>
      api.post(`${hooks}/${endpoint.body.id}/rotate-secret`),
    );
    const deliveries = await hit('GET /api/v1/projects/{slug}/webhook-endpoints/{endpointId}/deliveries', () =>
      api.get(`${hooks}/${endpoint.body.id}/deliveries?limit=5`),
    );
    await hit(
      'POST /api/v1/projects/{slug}/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/retry',
      () =>
        api.post(
          `${hooks}/${endpoint.body.id}/deliveries/${deliveries.body.deliveries[0]?.id ?? 'dlv_0000000000000000000000000'}/retry`,
        ),
      [202, 404],
    );
    await hit('DELETE /api/v1/projects/{slug}/webhook-endpoints/{endpointId}', () =>
      api.delete(`${hooks}/${endpoint.body.id}`),
    );
    // experiments: create, edit, list, read, start; the visitor's share read, view and checkout; stop, results.
    const experiments = '/api/v1/projects/grants/experiments';
    const experiment = await hit(
      'POST /api/v1/projects/{slug}/experiments',
      () =>
        api.post(experiments, {
          name: 'Pro at 12',
          variants: [
            { key: 'a', weight: 1 },
            { key: 'b', weight: 1, plans: [{ planId, basePrice: 12 }] },
          ],
        }),
      [201],
    );
    const one = `${experiments}/${experiment.body.id}`;
    await hit('PUT /api/v1/projects/{slug}/experiments/{experimentId}', () => api.put(one, { name: 'Pro at 12!' }));
    await hit('GET /api/v1/projects/{slug}/experiments', () => api.get(experiments));
    await hit('GET /api/v1/projects/{slug}/experiments/{experimentId}', () => api.get(one));
    await hit('POST /api/v1/projects/{slug}/experiments/{experimentId}/start', () => api.post(`${one}/start`));
    await hit('GET /api/share/{shareId}', () => visitor.get(`/api/share/${shareId}?visitor=grants-1`));
    await hit(
      'OPTIONS /api/share/{shareId}/views',
      () => visitor.request('OPTIONS', `/api/share/${shareId}/views`),
      [200, 204],
    );
    await hit(
      'POST /api/share/{shareId}/views',
      () => visitor.post(`/api/share/${shareId}/views`, { visitor: 'grants-1' }),
      [204],
    );
    await hit('POST /api/payments/checkout', () =>
      visitor.post('/api/payments/checkout', { shareId, planId, visitor: 'grants-1' }),
    );
    await hit('POST /api/v1/projects/{slug}/experiments/{experimentId}/stop', () => api.post(`${one}/stop`));
    await hit('GET /api/v1/projects/{slug}/experiments/{experimentId}/results', () => api.get(`${one}/results`));
    await hit('DELETE /api/v1/projects/{slug}', () => api.delete('/api/v1/projects/grants'));

    // The workers, each as its triggers invoke it; a new one does not compile until it runs here.
    expect(held).toEqual([projectId]);
    const config = runtimeConfig();
    const sweeper = createSweeper({
      sweeps,
      migrations: localMigrationsFor(),
      keyring: keyringFor(config),
      payments: stripeGatewayFor(config),
    });
    const context = { getRemainingTimeInMillis: () => 100_000 };
    const workerRuns: { [W in Worker]: () => Promise<void> } = {
      sweeper: async () => {
        await sweeper({ source: 'aws.events' }, context);
        await sweeper({ Records: held.map((id) => sqsRecord(sweepMessageBody(id))) }, context);
      },
      webhooksOut: async () => {
        const enqueued: DeliveryRef[] = [];
        const worker = createWebhooksOutWorker({
          keyring: keyringFor(config),
          sender: { send: async () => 200 },
          queue: {
            enqueue: async (refs) => void enqueued.push(...refs),
            delay: async () => {},
            wakeAt: async () => {},
          },
        });
        const item = { projectId, eventId: newEventId(), type: 'customer.deleted', body: '{}' };
        await worker({
          Records: [{ eventName: 'INSERT', dynamodb: { NewImage: marshall({ ...item, __edb_e__: 'webhookEvent' }) } }],
        } as DynamoDBStreamEvent);
        const ref = { projectId, endpointId: 1, eventId: item.eventId };
        await worker({ Records: [sqsRecord(JSON.stringify(ref))] });
        // A wake-up of a change due now (a manual subscription's period end).
        const due = { projectId, ownerId: 'nobody', slug: 'none', customerId: 'c1' };
        await worker({ Records: [sqsRecord(JSON.stringify({ due }))] });
      },
    };
    for (const [worker, run] of Object.entries(workerRuns)) await recorded(worker as Worker, undefined, run);
    expect((await pendingSweeps()).map((sweep) => sweep.projectId)).not.toContain(projectId);
  });

  test('every route of the table was served here, and every worker ran', () => {
    const served = new Set(made.flatMap((request) => request.route ?? []));
    // A new route fails here until a `hit` above serves it (with the calls its action makes).
    expect(routes.map(routeKey).filter((key) => !served.has(key as RouteKey))).toEqual([]);
    expect(Object.keys(functionSpecs).filter((fn) => !made.some((run) => run.fn === fn))).toEqual([]);
  });

  test('the recording sees the calls: every function with table access made DynamoDB calls', () => {
    // docs (GET /openapi.json) was served too, and made none: its spec grants no table access.
    const fns = Object.keys(functionSpecs) as (Group | Worker)[];
    const reading = fns.filter((fn) => functionSpecs[fn].table !== 'none' || functionSpecs[fn].indexes.length > 0);
    expect(made.filter((request) => request.fn === 'docs').map((request) => request.calls)).toEqual([[]]);
    for (const fn of reading) {
      const calls = made.filter((run) => run.fn === fn).flatMap((run) => run.calls);
      expect(calls.length, fn).toBeGreaterThan(0);
    }
  });

  test.each(Object.keys(functionSpecs) as (Group | Worker)[])('%s: each call it made is within its spec', (fn) => {
    const allowed = granted(fn);
    const missing = made
      .filter((run) => run.fn === fn)
      .flatMap((run) => run.calls.flatMap(needs).map((need) => `${run.route ?? fn}: ${need}`))
      .filter((entry) => !allowed.has(entry.slice(entry.indexOf(': ') + 2)));
    expect(missing).toEqual([]);
  });

  test('authenticated routes read their API key (GetItem on the table); public routes touch only gsi1 and payment records', () => {
    for (const request of made) {
      if (!request.route) continue;
      const needed = request.calls.flatMap(needs);
      if (request.route === 'POST /api/payments/webhook/{shareId}') {
        // The one public route that writes: the customer, after reading it and the project by share id.
        expect(new Set(needed), request.route).toEqual(
          new Set([
            'dynamodb:Query on index/gsi1',
            'dynamodb:GetItem on table',
            'dynamodb:ConditionCheckItem on table',
            'dynamodb:PutItem on table',
          ]),
        );
      } else if (findRoute(request.route)?.auth === 'public' && findRoute(request.route)?.group === 'customers') {
        // A customer token's calls: the project by share id, the rate limit's payment records,
        // and the token's customer (read, and written with its change's outbox events).
        const allowed = [
          'dynamodb:Query on index/gsi1',
          'dynamodb:GetItem on table',
          'dynamodb:UpdateItem on table',
          'dynamodb:ConditionCheckItem on table',
          'dynamodb:PutItem on table',
        ];
        expect(
          needed.filter((need) => !allowed.includes(need)),
          request.route,
        ).toEqual([]);
      } else if (findRoute(request.route)?.auth === 'public') {
        const onTable = request.calls.filter((call) => needs(call).some((need) => need.endsWith(' on table')));
        // The IAM condition (dynamodb:LeadingKeys) allows these items only.
        for (const call of onTable) {
          for (const pk of partitionsOf(call)) {
            expect(pk?.startsWith(paymentRecordsKeyPrefix), `${request.route}: ${call.command}`).toBe(true);
          }
        }
        expect(
          needed.filter((need) => need !== 'dynamodb:Query on index/gsi1' && !need.endsWith(' on table')),
          request.route,
        ).toEqual([]);
      } else {
        expect(needed, request.route).toContain('dynamodb:GetItem on table');
      }
    }
  });
});
