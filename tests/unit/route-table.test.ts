import { describe, expect, test } from 'vitest';
import { groupActions } from '#functions/action-registry.ts';
import { routes, routesByGroup } from '#functions/routes.ts';
import { createGroupHandler } from '#http/group-handler.ts';
import { createRouter } from '#http/router.ts';
import { compose } from '#shared/composition.ts';
import { parseRuntimeConfig } from '#shared/config.ts';
import { groupNames } from '#shared/function-specs.ts';
import { type Group, methodsOf, publicPathPrefixes, routeKey } from '#shared/routes.ts';

/**
 * Each group declares its routes in its own folder (functions/<group>/routes.ts) and its
 * function routes by them; the fallback function and the local server route by the whole
 * table, their union. For every request API Gateway can send a group's function (its own
 * route keys, HEAD beside each GET), its own routes must route exactly as the table does.
 */

const full = createRouter(routes);
const sampleValue: Record<string, string> = { slug: 'acme', shareId: 'abcdefghijklmnop', planId: '12' };
const concrete = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => sampleValue[name] ?? 'x1');
const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

describe('the route table', () => {
  test("is the union of the groups' own routes: each list holds its group's routes only, every group has one, no key twice", () => {
    expect(Object.keys(routesByGroup).sort()).toEqual([...groupNames].sort());
    for (const group of groupNames) {
      expect(routesByGroup[group].length, group).toBeGreaterThan(0);
      expect(
        routesByGroup[group].every((route) => route.group === group),
        group,
      ).toBe(true);
    }
    const union = Object.values(routesByGroup).flat();
    expect(routes.map(routeKey).sort()).toEqual(union.map(routeKey).sort());
    expect(new Set(routes.map(routeKey)).size).toBe(routes.length);
  });

  test("each group's actions are its own routes' (the registry the local server runs)", () => {
    for (const group of groupNames) {
      expect([...groupActions[group].actions.keys()].sort(), group).toEqual(routesByGroup[group].map(routeKey).sort());
      expect(groupActions[group].routes, group).toBe(routesByGroup[group]);
    }
  });

  test.each(groupNames)(
    "%s: its own routes find each of its route keys (HEAD beside each GET) as the table does, and answer each of its paths' methods the same",
    (group: Group) => {
      const own = createRouter(routesByGroup[group]);
      for (const route of routesByGroup[group]) {
        for (const method of methodsOf(route)) {
          const key = `${method} ${route.path}`;
          expect(own.find(key), key).toEqual(full.find(key));
          const path = concrete(route.path);
          expect(own.isPublicRequest(key, path), key).toBe(full.isPublicRequest(key, path));
        }
        // A path of this group is only this group's, so its routes know everything the table does of it.
        const path = concrete(route.path);
        for (const method of methods) {
          expect(own.match(method, path), `${method} ${path}`).toEqual(full.match(method, path));
          expect(String(own.unmatchedError(method, path)), `${method} ${path}`).toBe(
            String(full.unmatchedError(method, path)),
          );
        }
      }
      expect(own.find('HEAD /api/payments/checkout')).toBeUndefined();
    },
  );

  test('every public route under /api/ lies under a public prefix, and every route under one is public', () => {
    const under = (path: string) => publicPathPrefixes.some((prefix) => path.startsWith(`${prefix}/`));
    for (const route of routes) {
      if (route.auth === 'public' && route.path.startsWith('/api/')) expect(under(route.path), route.path).toBe(true);
      if (under(route.path)) expect(route.auth, route.path).toBe('public');
    }
  });

  test('a handler given routes without one of its actions fails at once, at the cold start', () => {
    const app = compose(parseRuntimeConfig({ LOG_LEVEL: 'silent' }), {});
    expect(() => createGroupHandler(groupActions.features, app, routesByGroup.plans)).toThrow(
      'features: no route GET /api/v1/projects/{slug}/features to serve',
    );
    expect(() => createGroupHandler(groupActions.features, app)).not.toThrow();
  });
});
