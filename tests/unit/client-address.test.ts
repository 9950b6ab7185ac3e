import { describe, expect, test } from 'vitest';
import { CDN_ORIGIN_HEADER, clientAddressOf } from '#http/client-address.ts';

/**
 * Whose address a public payment call counts against: API Gateway's sourceIp, or behind the
 * CDN (proved by its origin secret) the visitor CloudFront appended to X-Forwarded-For.
 */
const SECRET = 'cdn-origin-secret-of-the-stage';
const CLOUDFRONT = '130.176.12.34';
const VISITOR = '198.51.100.7';

const event = (sourceIp: string, headers: Record<string, string>) => ({
  headers,
  requestContext: { http: { sourceIp } } as never,
});

describe('clientAddressOf', () => {
  test('straight to the API (or locally): the connection’s peer, whatever X-Forwarded-For says', () => {
    const forged = { 'x-forwarded-for': '203.0.113.9' };
    expect(clientAddressOf(event(VISITOR, forged), { CDN_ORIGIN_SECRET: undefined })).toBe(VISITOR);
    expect(clientAddressOf(event(VISITOR, forged), { CDN_ORIGIN_SECRET: SECRET })).toBe(VISITOR);
    const guessed = { ...forged, [CDN_ORIGIN_HEADER]: 'a-guess' };
    expect(clientAddressOf(event(VISITOR, guessed), { CDN_ORIGIN_SECRET: SECRET })).toBe(VISITOR);
    // A stage without the secret configured trusts no header at all.
    const claimed = { ...forged, [CDN_ORIGIN_HEADER]: SECRET };
    expect(clientAddressOf(event(VISITOR, claimed), { CDN_ORIGIN_SECRET: undefined })).toBe(VISITOR);
  });

  test('through the CDN: the entry CloudFront appended, never one the visitor wrote before it', () => {
    const through = (forwardedFor: string) =>
      clientAddressOf(event(CLOUDFRONT, { [CDN_ORIGIN_HEADER]: SECRET, 'x-forwarded-for': forwardedFor }), {
        CDN_ORIGIN_SECRET: SECRET,
      });
    // API Gateway appends its peer (CloudFront) after the visitor CloudFront appended.
    expect(through(`${VISITOR}, ${CLOUDFRONT}`)).toBe(VISITOR);
    expect(through(`203.0.113.9, 10.0.0.1,${VISITOR} , ${CLOUDFRONT}`)).toBe(VISITOR);
    expect(through(VISITOR)).toBe(VISITOR);
    expect(through('2001:DB8::1')).toBe('2001:DB8::1');
    expect(through('')).toBe(CLOUDFRONT);
  });
});
