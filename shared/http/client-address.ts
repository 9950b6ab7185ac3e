import { timingSafeEqual } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { RuntimeConfig } from '#shared/config.ts';

/**
 * The header CloudFront adds to every request it sends the API (infra/cdn-stack.ts), holding
 * the stage's CDN_ORIGIN_SECRET: it tells a request that came through the CDN from one sent
 * to the API's own URL, where any header is the sender's to write.
 */
export const CDN_ORIGIN_HEADER = 'x-pricing-cdn-origin';

const sameSecret = (sent: string, secret: string) => {
  const a = Buffer.from(sent);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * The address of whoever sent the request, which public payment calls are counted against
 * (docs/decisions.md, "Rate limit of the public payment calls").
 *
 * API Gateway's `requestContext.http.sourceIp` is the peer of its TCP connection (locally, the
 * socket's): nobody can forge it. Through the CDN that peer is a CloudFront server, shared
 * by every visitor it serves, so there the visitor is read from X-Forwarded-For, but only on
 * requests that carry the CDN's secret: CloudFront appends the viewer's address to the list
 * it received, and API Gateway appends its own peer (CloudFront) after that, so the viewer is
 * the entry before a trailing `sourceIp`. Every entry further left is the sender's own
 * writing and never read.
 */
export function clientAddressOf(
  event: Pick<APIGatewayProxyEventV2, 'headers' | 'requestContext'>,
  config: Pick<RuntimeConfig, 'CDN_ORIGIN_SECRET'>,
): string {
  const sourceIp = event.requestContext?.http?.sourceIp ?? 'unknown';
  const sent = event.headers?.[CDN_ORIGIN_HEADER];
  if (!config.CDN_ORIGIN_SECRET || sent === undefined || !sameSecret(sent, config.CDN_ORIGIN_SECRET)) return sourceIp;
  const forwarded = (event.headers?.['x-forwarded-for'] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (forwarded.at(-1) === sourceIp) forwarded.pop();
  return forwarded.at(-1) ?? sourceIp;
}
