import { describe, expect, test } from 'vitest';
import { featureLimit } from '#domain/features/view.ts';
import { copyName, uniqueRefs } from '#domain/plans/plans.ts';
import { findRoute, routes } from '#functions/routes.ts';
import { etagOf, ifNoneMatchHits } from '#http/etag.ts';
import { createRouter } from '#http/router.ts';
import { acceptsGzip } from '#http/static-asset.ts';

const matchRoute = createRouter(routes).match;

describe('featureLimit', () => {
  test('is usageCount × multiplier without float noise', () => {
    expect(featureLimit(1000, 1.1)).toBe(1100);
    expect(featureLimit(3, 0.1)).toBe(0.3);
    expect(featureLimit(10, 0)).toBe(0);
    expect(featureLimit(7, 2.5)).toBe(17.5);
  });
});

describe('ETag', () => {
  test('is stable for equal bodies and differs otherwise', () => {
    expect(etagOf({ a: 1 })).toBe(etagOf({ a: 1 }));
    expect(etagOf({ a: 1 })).not.toBe(etagOf({ a: 2 }));
    expect(etagOf({ a: 1 })).toMatch(/^"[A-Za-z0-9_-]+"$/);
  });
  test('If-None-Match: lists, weak tags and *', () => {
    const tag = etagOf({ a: 1 });
    expect(ifNoneMatchHits(tag, tag)).toBe(true);
    expect(ifNoneMatchHits(`"x", W/${tag}`, tag)).toBe(true);
    expect(ifNoneMatchHits('*', tag)).toBe(true);
    expect(ifNoneMatchHits('"x"', tag)).toBe(false);
    expect(ifNoneMatchHits(undefined, tag)).toBe(false);
  });
});

describe('Accept-Encoding (static assets, the OpenAPI document)', () => {
  test.each([
    ['gzip', true],
    ['br, GZIP;q=0.5', true],
    ['*', true],
    ['x-gzip', true],
    [undefined, false],
    ['', false],
    ['identity', false],
    ['gzip;q=0', false],
    ['gzip; q=0.000', false],
    // `*` is every coding NOT listed: gzip refused by name stays refused (RFC 9110, 12.5.3).
    ['gzip;q=0, *', false],
    ['*, gzip;q=0', false],
    ['*;q=0, gzip', true],
    ['*;q=0', false],
  ])('%s: gzip %s', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});

describe('matchRoute', () => {
  test('finds routes and decodes path parameters', () => {
    const match = matchRoute('GET', '/api/v1/projects/acme/plans/12/features');
    expect(match).toMatchObject({
      kind: 'route',
      route: { path: '/api/v1/projects/{slug}/plans/{planId}/features', group: 'plans' },
      pathParameters: { slug: 'acme', planId: '12' },
    });
    expect(matchRoute('GET', '/api/share/a%20b')).toMatchObject({ pathParameters: { shareId: 'a b' } });
  });
  test('a HEAD finds the GET route, under the route key API Gateway names it by', () => {
    expect(matchRoute('HEAD', '/api/share/abc')).toMatchObject({
      kind: 'route',
      route: { method: 'GET', path: '/api/share/{shareId}' },
      key: 'HEAD /api/share/{shareId}',
      pathParameters: { shareId: 'abc' },
    });
    expect(findRoute('HEAD /widget.js')).toBe(findRoute('GET /widget.js'));
    expect(findRoute('HEAD /api/payments/checkout')).toBeUndefined();
  });
  test('tells 405 with the allowed methods from 404', () => {
    expect(matchRoute('PATCH', '/api/v1/projects')).toEqual({
      kind: 'method_not_allowed',
      allow: ['GET', 'HEAD', 'POST'],
    });
    expect(matchRoute('HEAD', '/api/payments/checkout')).toEqual({
      kind: 'method_not_allowed',
      allow: ['POST', 'OPTIONS'],
    });
    expect(matchRoute('GET', '/api/v1/projects/')).toEqual({ kind: 'not_found' });
    expect(matchRoute('GET', '/api/v1/projects/a/b')).toEqual({ kind: 'not_found' });
  });
});

describe('plans', () => {
  test('copy names stay within 100 characters', () => {
    expect(copyName('Pro')).toBe('Pro (Copy)');
    expect(copyName('x'.repeat(100))).toHaveLength(100);
    expect(copyName(`${'x'.repeat(92)}       y`)).toBe(`${'x'.repeat(92)} (Copy)`);
  });
  test('duplicate feature refs count once, the first wins', () => {
    expect(
      uniqueRefs([
        { featureId: 1, multiplier: 2 },
        { featureId: 2, multiplier: 1 },
        { featureId: 1, multiplier: 5 },
      ]),
    ).toEqual([
      { featureId: 1, multiplier: 2 },
      { featureId: 2, multiplier: 1 },
    ]);
  });
});
