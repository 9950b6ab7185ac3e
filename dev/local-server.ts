import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { Ports } from '#domain/ports.ts';
import { groups } from '#functions/groups.ts';
import { errorBody } from '#http/errors.ts';
import { createGroupHandler, type LambdaHandler } from '#http/group-handler.ts';
import { matchRoute } from '#http/router.ts';
import { type App, compose } from '#shared/composition.ts';
import { runtimeConfig } from '#shared/config.ts';
import { stripeGatewayFor } from '#shared/payments/stripe.ts';
import { fallbackGroup, type Group, routeKey } from '#shared/routes.ts';
import { keyringFor } from '#shared/secrets/keyring.ts';

/** The same group actions that CDK bundles into one Lambda per group, all on one App. */
function groupHandlers(app: App<Ports>): Record<Group, LambdaHandler> {
  return {
    share: createGroupHandler(groups.share, app),
    payments: createGroupHandler(groups.payments, app),
    projects: createGroupHandler(groups.projects, app),
    features: createGroupHandler(groups.features, app),
    plans: createGroupHandler(groups.plans, app),
  };
}

/** Every port, from the environment's configuration (the tests' default). */
export const composeFromEnvironment = (): App<Ports> =>
  compose(runtimeConfig(), { keyring: keyringFor, payments: stripeGatewayFor });

/** API Gateway's own ceiling on a request body. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;
const TEXT_CONTENT = /^(?:text\/|application\/(?:[^;]*\+)?(?:json|xml|x-www-form-urlencoded|javascript))/i;

class BodyTooLargeError extends Error {}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLargeError();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
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
  const url = new URL(req.url ?? '/', 'http://localhost');
  const method = (req.method ?? 'GET').toUpperCase();
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && name !== 'cookie') headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;

  const match = matchRoute(method, url.pathname);
  const group = match.kind === 'route' ? match.route.group : fallbackGroup;
  const isText = TEXT_CONTENT.test(headers['content-type'] ?? '');
  const now = new Date();
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: match.kind === 'route' ? routeKey(match.route) : '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
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
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: match.kind === 'route' ? routeKey(match.route) : '$default',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length > 0 ? { body: isText ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: body.length > 0 && !isText,
  };
  return { event, group };
}

async function handle(
  handlers: Record<Group, LambdaHandler>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const requestId = randomUUID();
  let body: Buffer;
  try {
    body = await readBody(req);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    res.writeHead(413, {
      'content-type': 'application/json; charset=utf-8',
      'x-request-id': requestId,
      connection: 'close',
    });
    res.end(JSON.stringify(errorBody('payload_too_large', 'Request body is larger than 10 MiB.')));
    return;
  }
  const { event, group } = toEvent(req, body, requestId);
  const result = await handlers[group](event, lambdaContext(requestId, group));
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, String(value));
  if (result.cookies?.length) res.setHeader('set-cookie', result.cookies);
  res.statusCode = result.statusCode;
  if (result.body === undefined) {
    res.end();
    return;
  }
  res.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
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
   * after `graceMs`. Resolves once no connection is left. Called again, it keeps the first
   * call's promise, and a shorter `graceMs` (0: now) brings the cut forward.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** Node's HTTP server in front of the group handlers, as API Gateway is in a stage. */
export async function startLocalServer({
  port,
  host = '127.0.0.1',
  app = composeFromEnvironment(),
}: {
  port: number;
  host?: string;
  app?: App<Ports>;
}): Promise<LocalServer> {
  const handlers = groupHandlers(app);
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
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
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
      });
      void closed.finally(() => clearTimeout(cut));
      return closed;
    },
  };
}
