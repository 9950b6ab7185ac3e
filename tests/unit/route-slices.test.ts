import { describe, expect, test } from 'vitest';
import { routeSlicesModule } from '#dev/route-slices.ts';
import { groups } from '#functions/groups.ts';
import { createGroupHandler } from '#http/group-handler.ts';
import { createRouter } from '#http/router.ts';
import { compose } from '#shared/composition.ts';
import { parseRuntimeConfig } from '#shared/config.ts';
import { groupNames } from '#shared/groups.ts';
import { routeSlices } from '#shared/route-slices.ts';
import { type Group, methodsOf, routeKey, routes } from '#shared/routes.ts';
import { staleRouteSlices } from '../../infra/api-stack.ts';

/**
 * Each group's function routes by its slice of the table (shared/route-slices.ts), the
 * fallback function and the local server by the whole table. The slices must be the table,
 * cut by group; and for every request API Gateway can send a group's function (its own route
 * keys, HEAD beside each GET) the slice must route exactly as the table does.
 */

const full = createRouter(routes);
const sampleValue: Record<string, string> = { slug: 'acme', shareId: 'abcdefghijklmnop', planId: '12' };
const concrete = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => sampleValue[name] ?? 'x1');
const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

describe('the route slices', () => {
  test("each group's slice is exactly its routes in the table, in the table's order, and together they are the table", () => {
    expect(Object.keys(routeSlices).sort()).toEqual([...groupNames].sort());
    for (const group of groupNames) {
      expect(routeSlices[group], group).toEqual(routes.filter((route) => route.group === group));
    }
    const all = Object.values(routeSlices).flat();
    expect(all.map(routeKey).sort()).toEqual(routes.map(routeKey).sort());
    expect(staleRouteSlices()).toEqual([]);
  });

  test('the committed file is what npm run openapi writes from the table', async () => {
    const { readFile } = await import('node:fs/promises');
    const committed = await readFile(new URL('../../shared/route-slices.ts', import.meta.url), 'utf8');
    expect(committed, 'shared/route-slices.ts is stale: run npm run openapi').toBe(routeSlicesModule());
  });

  test.each(groupNames)(
    "%s: its slice finds each of its route keys (HEAD beside each GET) as the table does, and answers each of its paths' methods the same",
    (group: Group) => {
      const slice = createRouter(routeSlices[group]);
      for (const route of routeSlices[group]) {
        for (const method of methodsOf(route)) {
          const key = `${method} ${route.path}`;
          expect(slice.find(key), key).toEqual(full.find(key));
          expect(slice.find(key), key).toBe(route);
          const path = concrete(route.path);
          expect(slice.isPublicRequest(key, path), key).toBe(full.isPublicRequest(key, path));
          expect(slice.isPublicRequest('$default', path), key).toBe(full.isPublicRequest('$default', path));
        }
        // Every method on the path (a route's own, 405 with the same Allow, or 404): a path of
        // this group is only this group's, so the slice knows everything the table does of it.
        const path = concrete(route.path);
        for (const method of methods) {
          expect(slice.match(method, path), `${method} ${path}`).toEqual(full.match(method, path));
          expect(String(slice.unmatchedError(method, path)), `${method} ${path}`).toBe(
            String(full.unmatchedError(method, path)),
          );
        }
      }
      expect(slice.find('HEAD /api/payments/checkout')).toBeUndefined();
    },
  );

  test('a handler given routes without one of its actions fails at once (a stale slice fails the cold start)', () => {
    const app = compose(parseRuntimeConfig({ LOG_LEVEL: 'silent' }), {});
    expect(() => createGroupHandler(groups.features, app, routeSlices.plans)).toThrow(
      'features: no route GET /api/v1/projects/{slug}/features to serve',
    );
    expect(() => createGroupHandler(groups.features, app, routeSlices.features)).not.toThrow();
  });
});
