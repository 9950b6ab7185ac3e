import { type NativeAttributeValue, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { createDocumentClient, type DynamoOptions } from '#db/client.ts';
import type { Ports } from '#domain/ports.ts';
import { groupActions } from '#functions/action-registry.ts';
import { routes } from '#functions/routes.ts';
import { createGroupHandler, type LambdaHandler } from '#http/group-handler.ts';
import type { App } from '#shared/composition.ts';

/**
 * The warm read path against its yardstick (`npm run bench`): a group's Lambda
 * handler, called in this process with the event API Gateway would send, against a bare Query
 * of the same items through a DocumentClient with the service's own client configuration
 * (`createDocumentClient`: the SDK's logger middleware removed on both sides, so the ratio is
 * what our code adds, not what a default client spends). Calls alternate between the two, so
 * load on a shared machine hits both alike. CPU is this process's (user + system) per call: the
 * handler's whole pipeline, the SDK, the item mapping and our formatting.
 */

export interface WarmCase {
  label: string;
  handler: LambdaHandler;
  routeKey: string;
  path: string;
  pathParameters: Record<string, string>;
  headers: Record<string, string>;
  /** The bare Query reading the same items. */
  query: QueryCommandInput;
}

export interface WarmRow {
  label: string;
  /** Handler and bare calls measured, side by side. */
  pairs: number;
  handlerCpuMs: number;
  bareCpuMs: number;
  handlerP50: number;
  bareP50: number;
}

const WARMUP_CALLS = 40;
/**
 * Each case is measured for at least this long (and at least `iterations` pairs): a small
 * read is far quicker than the whole project's, so the cheap reads get several times the samples and their ratio moves less from run to run on a shared machine.
 */
const MIN_MEASURED_MS = 4000;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

function eventFor(c: WarmCase): APIGatewayProxyEventV2 {
  const now = new Date();
  return {
    version: '2.0',
    routeKey: c.routeKey,
    rawPath: c.path,
    rawQueryString: '',
    headers: c.headers,
    pathParameters: c.pathParameters,
    isBase64Encoded: false,
    requestContext: {
      accountId: 'bench',
      apiId: 'bench',
      domainName: 'bench',
      domainPrefix: 'bench',
      http: { method: 'GET', path: c.path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' },
      requestId: 'bench',
      routeKey: c.routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
  };
}

/** CPU and wall milliseconds of one call. */
async function timed(call: () => Promise<unknown>): Promise<{ cpu: number; wall: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await call();
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { cpu: (used.user + used.system) / 1000, wall };
}

export async function measureWarm(cases: WarmCase[], options: DynamoOptions, iterations: number): Promise<WarmRow[]> {
  const client = createDocumentClient(options);
  const context = { awsRequestId: 'bench', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
  try {
    const rows: WarmRow[] = [];
    for (const c of cases) {
      const event = eventFor(c);
      const handlerCall = async () => {
        const result = await c.handler(event, context);
        if (result.statusCode !== 200) throw new Error(`${c.label}: ${result.statusCode} ${result.body}`);
      };
      const bareCall = async () => {
        let startKey: Record<string, NativeAttributeValue> | undefined;
        do {
          const page = await client.send(new QueryCommand({ ...c.query, ExclusiveStartKey: startKey }));
          startKey = page.LastEvaluatedKey;
        } while (startKey);
      };
      // Long enough for the JIT to settle on both paths (with BENCH_ONLY=warm the handler's code
      // has not run before; the SDK's has, for the seed).
      for (let i = 0; i < WARMUP_CALLS; i++) {
        await handlerCall();
        await bareCall();
      }
      const handler: { cpu: number; wall: number }[] = [];
      const bare: { cpu: number; wall: number }[] = [];
      const started = performance.now();
      for (let i = 0; i < iterations || performance.now() - started < MIN_MEASURED_MS; i++) {
        handler.push(await timed(handlerCall));
        bare.push(await timed(bareCall));
      }
      rows.push({
        label: c.label,
        pairs: handler.length,
        handlerCpuMs: median(handler.map((t) => t.cpu)),
        bareCpuMs: median(bare.map((t) => t.cpu)),
        handlerP50: median(handler.map((t) => t.wall)),
        bareP50: median(bare.map((t) => t.wall)),
      });
    }
    return rows;
  } finally {
    client.destroy();
  }
}

/** Requests per second of `concurrency` clients fetching `url` for `durationMs`, all answered `status`. */
export async function throughput(
  url: string,
  {
    concurrency,
    durationMs,
    headers = {},
    status = 200,
  }: { concurrency: number; durationMs: number; headers?: Record<string, string>; status?: number },
): Promise<number> {
  const end = performance.now() + durationMs;
  let done = 0;
  const worker = async () => {
    while (performance.now() < end) {
      const response = await fetch(url, { headers });
      await response.arrayBuffer();
      if (response.status !== status) throw new Error(`${url}: ${response.status}, expected ${status}`);
      done += 1;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return done / ((performance.now() - start) / 1000);
}

/** Handler CPU and p50 beside a bare Query (docs/decisions.md, "Warm reads"), and the share path's throughput. */
export async function printWarm(run: {
  tableName: string;
  ownerId: string;
  app: App<Ports>;
  key: string;
  slug: string;
  shareId: string;
  serverUrl: string;
  options: Parameters<typeof measureWarm>[1];
  iterations: number;
}): Promise<void> {
  const projectPk = `$pricing#ownerId_${run.ownerId}#slug_${run.slug}`;
  const wholeProject = {
    TableName: run.tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': projectPk },
    ConsistentRead: true,
  };
  const v1Case = (group: 'projects' | 'features' | 'plans', tail: string, query: QueryCommandInput): WarmCase => ({
    label: `GET /api/v1/projects/{slug}${tail}`,
    handler: createGroupHandler(groupActions[group], run.app, routes),
    routeKey: `GET /api/v1/projects/{slug}${tail}`,
    path: `/api/v1/projects/${run.slug}${tail}`,
    pathParameters: { slug: run.slug },
    headers: { authorization: `Bearer ${run.key}` },
    query,
  });
  const warm = await measureWarm(
    [
      {
        label: 'GET /api/share/{shareId}',
        handler: createGroupHandler(groupActions.share, run.app, routes),
        routeKey: 'GET /api/share/{shareId}',
        path: `/api/share/${run.shareId}`,
        pathParameters: { shareId: run.shareId },
        headers: {},
        query: {
          TableName: run.tableName,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :pk',
          ExpressionAttributeValues: { ':pk': `$pricing#shareId_${run.shareId}` },
        },
      },
      v1Case('projects', '', wholeProject),
      // The feature head and the features: the sort-key range the endpoint reads.
      v1Case('features', '/features', {
        TableName: run.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': projectPk,
          ':from': '$projectData#featureHead_1',
          ':to': '$projectData#feature_1#featureId_\uffff',
        },
        ConsistentRead: true,
      }),
      v1Case('plans', '/plans', wholeProject),
    ],
    run.options,
    run.iterations,
  );
  console.log(
    "\nwarm handler (called in process) vs a bare Query of the same items (the service's DocumentClient configuration):",
  );
  for (const r of warm) {
    console.log(
      `  ${r.label}: CPU ${r.handlerCpuMs.toFixed(2)} vs ${r.bareCpuMs.toFixed(2)} ms (${(r.handlerCpuMs / r.bareCpuMs).toFixed(2)}×), p50 ${r.handlerP50.toFixed(2)} vs ${r.bareP50.toFixed(2)} ms (${(r.handlerP50 / r.bareP50).toFixed(2)}×), ${r.pairs} pairs`,
    );
  }
  const url = `${run.serverUrl}/api/share/${run.shareId}`;
  const etag = (await fetch(url)).headers.get('etag') ?? '';
  const full = await throughput(url, { concurrency: 8, durationMs: 3000 });
  const revalidated = await throughput(url, {
    concurrency: 8,
    durationMs: 3000,
    headers: { 'if-none-match': etag },
    status: 304,
  });
  console.log(
    `\nshare throughput on the local server, 8 concurrent clients: ${full.toFixed(0)} req/s answered 200, ${revalidated.toFixed(0)} req/s revalidated (If-None-Match, 304)`,
  );
}
