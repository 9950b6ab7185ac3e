import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** What an action returns; the group handler turns it into API Gateway's result. */
export interface HttpResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type LambdaResult = APIGatewayProxyStructuredResultV2 & {
  statusCode: number;
  headers: Record<string, string | number | boolean>;
};

export const ok = (body: unknown): HttpResult => ({ status: 200, body });
export const created = (body: unknown): HttpResult => ({ status: 201, body });
export const success = (): HttpResult => ({ status: 200, body: { success: true } });

export function toLambdaResult({ status, body, headers }: HttpResult): LambdaResult {
  if (body === undefined) return { statusCode: status, headers: { ...headers } };
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(body),
  };
}
