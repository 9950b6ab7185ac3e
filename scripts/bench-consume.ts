import { randomBytes } from 'node:crypto';
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { entitlementKeys, usageKeys } from '#db/usage-item-keys.ts';
import { createConsumer } from '#domain/usage/consume.ts';
import { utcMonth } from '#domain/usage/record.ts';
import { totalDynamoRequests } from '#shared/request-context.ts';
import { apiCaller, BenchError, type BenchOn, type Row, timed } from './bench-harness.ts';

/**
 * The consume rows of `npm run bench`: DynamoDB requests per consume with a warm cache, its
 * p50 in process and over HTTP beside a bare conditional UpdateItem of the very aggregate it
 * writes, and allowed consumes/s on one customer from 8 concurrent callers: over HTTP (one
 * process, whose consumes of one aggregate take turns) and from 8 instances with their own
 * view each (as 8 Lambda containers would be), which meet in DynamoDB's conditions.
 */

const CALLERS = 8;
const THROUGHPUT_SECONDS = 3;

export async function consumeRows(options: BenchOn): Promise<{ rows: Row[]; notes: string[] }> {
  const { client, table, serverUrl, key, ownerId, iterations, cacheTtlMs } = options;
  const call = apiCaller(serverUrl, () => key);
  const project = await call('POST', '/api/v1/projects', 201, { name: 'Consume bench' });
  const base = `/api/v1/projects/${project.slug}`;
  const feature = await call('POST', `${base}/features`, 201, {
    name: 'Calls',
    basePrice: 0,
    isCountable: true,
    usageCount: 1_000_000_000,
  });
  await call('POST', `${base}/plans`, 201, {
    name: 'Free',
    basePrice: 0,
    isFree: true,
    features: [{ featureId: feature.id }],
  });
  const projectKey = { ownerId, slug: project.slug as string };
  const run = randomBytes(4).toString('hex');
  let serial = 0;
  const eventId = () => `${run}-${serial++}`;
  const consumePath = (customerId: string) => `${base}/customers/${customerId}/entitlements/${feature.id}/consume`;
  const inProcess = createConsumer();
  const customerId = 'hot';

  const row = (label: string, work: () => Promise<unknown>) => timed(label, '1 aggregate', iterations, work);
  // In process, then over HTTP (which adds the key check's cache, parsing and the server),
  // then the bare write: the same aggregate item, one conditional ADD.
  const domain = await row('consume (in process, warm)', async () => {
    const answer = await inProcess.consume(projectKey, customerId, feature.id, { eventId: eventId() }, { cacheTtlMs });
    if (!answer.allowed) throw new BenchError('a consume under the limit was refused');
  });
  const http = await row('POST …/consume (warm)', () =>
    call('POST', consumePath(customerId), 200, { eventId: eventId() }),
  );
  const aggregate = usageKeys.aggregate(project.id, customerId, utcMonth(Date.now()), {
    featureId: feature.id,
    method: 'count',
  });
  const addOne = {
    TableName: table,
    Key: aggregate,
    UpdateExpression: 'ADD #amount :one',
    ConditionExpression: '#amount <= :max',
    ExpressionAttributeNames: { '#amount': 'amount' },
    ExpressionAttributeValues: { ':one': 1, ':max': 999_999_999 },
  };
  const bare = await row('baseline: conditional UpdateItem, same item', () => client.send(new UpdateCommand(addOne)));

  const throughput = async (consumeOne: (caller: number) => Promise<boolean>) => {
    const until = performance.now() + THROUGHPUT_SECONDS * 1000;
    const before = totalDynamoRequests();
    const start = performance.now();
    const allowed = await Promise.all(
      Array.from({ length: CALLERS }, async (_, caller) => {
        let count = 0;
        while (performance.now() < until) if (await consumeOne(caller)) count++;
        return count;
      }),
    );
    const total = allowed.reduce((sum, n) => sum + n, 0);
    const seconds = (performance.now() - start) / 1000;
    return { perSecond: total / seconds, requestsPerConsume: (totalDynamoRequests() - before) / total };
  };
  const overHttp = await throughput(
    async () => (await call('POST', consumePath('burst-http'), 200, { eventId: eventId() })).allowed,
  );
  const instances = Array.from({ length: CALLERS }, () => createConsumer());
  const apart = await throughput(
    async (caller) =>
      (
        await (instances[caller] as ReturnType<typeof createConsumer>).consume(
          projectKey,
          'burst-instances',
          feature.id,
          { eventId: eventId() },
          { cacheTtlMs },
        )
      ).allowed,
  );
  // What the engine asks of any such transaction: the customer checked, the event id put,
  // the aggregate added to, by hand (what a consume's code adds is the rest).
  const [customerKey] = entitlementKeys(project.id, customerId, utcMonth(Date.now()), []);
  const transaction = await row('baseline: the TransactWriteItems alone', () =>
    client.send(
      new TransactWriteCommand({
        TransactItems: [
          { ConditionCheck: { TableName: table, Key: customerKey, ConditionExpression: 'attribute_not_exists(sk)' } },
          {
            Put: {
              TableName: table,
              Item: { ...usageKeys.event(project.id, eventId()), expiresAt: 0 },
              ConditionExpression: 'attribute_not_exists(sk)',
            },
          },
          { Update: addOne },
        ],
      }),
    ),
  );
  const ratio = (row: Row) => (row.p50 / bare.p50).toFixed(2);
  const notes = [
    `consume: ${domain.requestsMax} DynamoDB request(s) per call warm (target 1); p50 ${domain.p50.toFixed(2)} ms in process = ${ratio(domain)}× a bare conditional UpdateItem of the same item (${bare.p50.toFixed(2)} ms; target ≤ 1.3×), over HTTP ${http.p50.toFixed(2)} ms = ${ratio(http)}×; the bare TransactWriteItems of its items ${transaction.p50.toFixed(2)} ms = ${ratio(transaction)}×`,
    `consume on one customer from ${CALLERS} concurrent callers: over HTTP ${Math.round(overHttp.perSecond)} allowed/s (${overHttp.requestsPerConsume.toFixed(2)} requests each); from ${CALLERS} instances with their own view ${Math.round(apart.perSecond)} allowed/s (${apart.requestsPerConsume.toFixed(2)} requests each: the conditions' retries)`,
  ];
  return { rows: [domain, http, bare, transaction], notes };
}
