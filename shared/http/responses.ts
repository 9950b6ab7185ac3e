import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import * as z from 'zod';
import { lazySchema } from '#domain/validation.ts';

/** What an action returns; the pipeline's `lambdaAnswer` step turns it into API Gateway's result. */
export interface HttpResult {
  status: number;
  /** Sent as JSON. */
  body?: unknown;
  /** `body` already serialized, sent as is (an answer whose ETag was computed over these bytes). */
  json?: string;
  /** Sent as is instead (a script, a page); `headers` must carry its content-type. */
  raw?: string | Buffer;
  headers?: Record<string, string>;
  /** A 304's: the size of the body its 200 would send, which decides that answer's coding and so its ETag. */
  representationBytes?: number;
}

export type LambdaResult = APIGatewayProxyStructuredResultV2 & {
  statusCode: number;
  headers: Record<string, string | number | boolean>;
};

export const ok = (body: unknown, status = 200): HttpResult => ({ status, body });
/** A customer's own data (a checkout link, a receipt, what its token reads): no cache may keep it. */
export const privately = (body: unknown) => ({ status: 200, body, headers: { 'cache-control': 'no-store' } });
/** What a delete (or a removal) answers. */
export const SuccessView = lazySchema(() => z.strictObject({ success: z.literal(true) }));
/** `{ success: true }` once `done` (a delete) has finished. */
export const success = async (done: Promise<unknown>): Promise<HttpResult> => {
  await done;
  return { status: 200, body: { success: true } };
};

export function toLambdaResult({ status, body, json, raw, headers }: HttpResult): LambdaResult {
  if (typeof raw === 'string') return { statusCode: status, headers: { ...headers }, body: raw };
  if (raw) return { statusCode: status, headers: { ...headers }, body: raw.toString('base64'), isBase64Encoded: true };
  if (body === undefined) return { statusCode: status, headers: { ...headers } };
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: json ?? JSON.stringify(body),
  };
}
