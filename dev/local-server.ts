import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { limits } from '#contract/limits.ts';
import { type Clock, type Ports, systemClock } from '#domain/ports.ts';
import { groupActions } from '#functions/action-registry.ts';
import { fallbackGroup, routes } from '#functions/routes.ts';
import type { DefinedGroup } from '#http/action.ts';
import { withSharedHeaders } from '#http/answer-middlewares.ts';
import { errorBody, errorResult, payloadTooLarge } from '#http/errors.ts';
import { createGroupHandler, type LambdaHandler } from '#http/group-handler.ts';
import { type HttpResult, type LambdaResult, toLambdaResult } from '#http/responses.ts';
import { createRouter } from '#http/router.ts';
import { type App, compose, type PortBuilders } from '#shared/composition.ts';
import { runtimeConfig } from '#shared/config.ts';
import { stripeGatewayFor } from '#shared/payments/stripe.ts';
import { stripeWebhookVerifier } from '#shared/payments/stripe-webhooks.ts';
import type { Group } from '#shared/routes.ts';
import { keyringFor } from '#shared/secrets/keyring.ts';
import { tokenKeysFor } from '#shared/secrets/token-keys.ts';
import { httpWebhookSender } from '#shared/webhooks-out/http-sender.ts';
import { localMigrationsFor } from './local-migrations.ts';
import { LocalSweeper, localSweeperFor } from './local-sweeper.ts';
import { LocalWebhooksOut } from './local-webhooks-out.ts';

/** Routes every request as API Gateway does, by the whole table. */
const router = createRouter(routes);

/**
 * The same group handlers that CDK bundles into one Lambda per group, all on one App, each
 * routing as its deployed function does: by its own routes, and the fallback group by the
 * whole table (the server hands each only its own routes, or `$default` to the fallback
 * group, as API Gateway does).
 */
function groupHandlers(app: App<Ports>): Record<Group, LambdaHandler> {
  const handlers = Object.values(groupActions).map((defined: DefinedGroup) => [
    defined.group,
    createGroupHandler(defined, app, defined.group === fallbackGroup ? routes : undefined),
  ]);
  return Object.fromEntries(handlers);
}

/** The ports every local process builds alike: Stripe as configured, the system clock, sweeps and migrations in process. */
export const localPorts = {
  payments: stripeGatewayFor,
  clock: () => systemClock,
  sweeps: localSweeperFor,
  migrations: localMigrationsFor,
  webhooks: stripeWebhookVerifier,
} satisfies Partial<PortBuilders<Ports>>;

/** Every port, from the environment's configuration (the tests' default); `clock` replaces the system's. */
export const composeFromEnvironment = ({ clock = systemClock }: { clock?: Clock } = {}): App<Ports> =>
  compose(runtimeConfig(), { ...localPorts, keyring: keyringFor, clock: () => clock, tokenKeys: tokenKeysFor });

const TEXT_CONTENT = /^(?:text\/|application\/(?:[^;]*\+)?(?:json|xml|x-www-form-urlencoded|javascript))/i;

/** A body over the API's limit: the server stops reading it and answers 413 at once. */
const TOO_LARGE = Symbol('too large');

/**
 * The body, or TOO_LARGE as soon as the declared length or the bytes read pass
 * `limits.bodyBytesMax`: nothing past the limit is buffered, and the rest is never read
 * (the connection closes with the answer). The Lambda path answers the same 413.
 */
function readBody(req: IncomingMessage): Promise<Buffer | typeof TOO_LARGE> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length'] ?? 0) > limits.bodyBytesMax) {
      resolve(TOO_LARGE);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limits.bodyBytesMax) {
        chunks.push(chunk);
        return;
      }
      req.off('data', onData);
      req.pause();
      resolve(TOO_LARGE);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/**
 * The request target as sent, split at `?`: API Gateway routes the raw path, so `..`,
 * `%2e%2e` or `//` must not be resolved (WHATWG URL parsing would turn
 * `/api/share/%2e%2e/api/v1/projects` into another route). An absolute-form target
 * (`http://host/path`) loses its scheme and host.
 */
function requestTarget(target = '/'): { path: string; query: string } {
  const [origin = ''] = target.replace(/^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i, '').split('#', 1);
  const mark = origin.indexOf('?');
  if (mark === -1) return { path: origin || '/', query: '' };
  return { path: origin.slice(0, mark) || '/', query: origin.slice(mark + 1) };
}

function lambdaContext(requestId: string, group: Group): Context {
  const deadline = Date.now() + 29_000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `local-${group}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:local-${group}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/local-${group}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

/** Turns a Node request into the payload v2 event API Gateway's HTTP API would send. */
function toEvent(req: IncomingMessage, body: Buffer, requestId: string) {
  const { path, query: rawQuery } = requestTarget(req.url);
  const method = (req.method ?? 'GET').toUpperCase();
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && name !== 'cookie') headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQuery))
    query[name] = name in query ? `${query[name]},${value}` : value;

  const match = router.match(method, path);
  const group = match.kind === 'route' ? match.route.group : fallbackGroup;
  const isText = TEXT_CONTENT.test(headers['content-type'] ?? '');
  const now = new Date();
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: match.kind === 'route' ? match.key : '$default',
    rawPath: path,
    rawQueryString: rawQuery,
    ...(req.headers.cookie ? { cookies: req.headers.cookie.split(/;\s*/) } : {}),
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    ...(match.kind === 'route' && Object.keys(match.pathParameters).length > 0
      ? { pathParameters: match.pathParameters }
      : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0] ?? 'localhost',
      http: {
        method,
        path,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: match.kind === 'route' ? match.key : '$default',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length > 0 ? { body: isText ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: body.length > 0 && !isText,
  };
  return { event, group };
}

const stringHeaders = (headers: LambdaResult['headers'] = {}) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]));

async function handle(
  handlers: Record<Group, LambdaHandler>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const requestId = randomUUID();
  const body = await readBody(req);
  if (body === TOO_LARGE) {
    // Answered with the headers the group handlers give (CORS on public routes, no-store...).
    const { event } = toEvent(req, Buffer.alloc(0), requestId);
    const tooLarge = errorResult(payloadTooLarge(limits.bodyBytesMax)) as HttpResult;
    const result = withSharedHeaders(toLambdaResult(tooLarge), event, requestId, router);
    res.writeHead(result.statusCode, { ...stringHeaders(result.headers), connection: 'close' });
    res.end(result.body);
    return;
  }
  const { event, group } = toEvent(req, body, requestId);
  const result = await handlers[group](event, lambdaContext(requestId, group));
  for (const [name, value] of Object.entries(stringHeaders(result.headers))) res.setHeader(name, value);
  if (result.cookies?.length) res.setHeader('set-cookie', result.cookies);
  res.statusCode = result.statusCode;
  res.end(result.body !== undefined && result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
}

/** How long close() lets requests in flight finish before it closes their connections. */
export const CLOSE_GRACE_MS = 10_000;

export interface LocalServer {
  url: string;
  server: Server;
  /** Requests received and not yet answered. */
  readonly inFlight: number;
  /**
   * Stops accepting connections and closes idle keep-alive ones at once, lets the requests
   * in flight finish (each answer then ends its connection), and closes what is still open
   * after `graceMs`. Resolves once no connection is left and the background sweep (a local
   * sweep queue's) has stopped at the end of its current batch: what it did not reach stays
   * pending in the table, and the next start resumes it. Called again, it keeps the first
   * call's promise, and a shorter `graceMs` (0: now) brings the cut forward.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** Node's HTTP server in front of the group handlers, as API Gateway is in a stage. */
export async function startLocalServer({
  port,
  host = '127.0.0.1',
  app = composeFromEnvironment(),
  webhooksOut = true,
}: {
  port: number;
  host?: string;
  app?: App<Ports>;
  /** Deliver the outbox's webhooks in the background (a test of the workers runs them itself). */
  webhooksOut?: boolean;
}): Promise<LocalServer> {
  const handlers = groupHandlers(app);
  const delivery = webhooksOut
    ? new LocalWebhooksOut(
        app.ports.keyring,
        httpWebhookSender(app.config.WEBHOOK_URLS),
        app.config.WEBHOOK_RETRY_SCALE,
      )
    : undefined;
  delivery?.start();
  // Deleted projects whose sweep a previous run did not finish (killed, or stopped mid-sweep).
  const sweeper = app.ports.sweeps instanceof LocalSweeper ? app.ports.sweeps : undefined;
  sweeper?.resumePending().catch((error: unknown) => console.error('could not resume pending sweeps', error));
  const inFlight = new Set<ServerResponse>();
  let closed: Promise<void> | undefined;
  const server = createServer((req, res) => {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    if (closed) res.setHeader('connection', 'close');
    handle(handlers, req, res).catch((error: unknown) => {
      // The connection closed while the body was arriving (the client left, or close() cut
      // it): there is no one to answer.
      if (req.destroyed && (error as NodeJS.ErrnoException).code === 'ECONNRESET') return;
      // The handlers answer every error themselves; this is the server's own last resort.
      console.error('local server error', error);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8', 'x-content-type-options': 'nosniff' });
      }
      res.end(JSON.stringify(errorBody('internal_error', 'Internal error in the local server.')));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}`,
    server,
    get inFlight() {
      return inFlight.size;
    },
    close({ graceMs = CLOSE_GRACE_MS } = {}) {
      const cut = setTimeout(() => server.closeAllConnections(), graceMs);
      closed ??= new Promise<void>((resolve) => {
        // Answers from now on end their connection, so no keep-alive socket outlives its request.
        for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
        server.close(() => resolve());
        server.closeIdleConnections();
      })
        .then(() => Promise.all([sweeper?.stop(), delivery?.stop()]))
        .then(() => undefined);
      void closed.finally(() => clearTimeout(cut));
      return closed;
    },
  };
}
