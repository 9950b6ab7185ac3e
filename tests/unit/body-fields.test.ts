/**
 * One validation path for every route's body (the route's declared schema through `parse`,
 * as the pipeline runs it): a field is named by its own name, whatever it is called, and an
 * absent field "is required", whatever its schema says of a wrong value.
 */
import { describe, expect, test } from 'vitest';
import { ValidationError } from '#domain/errors.ts';
import { parse } from '#domain/validation.ts';
import { groupActions } from '#functions/action-registry.ts';
import type { RouteAction } from '#http/action.ts';

const bodyRoutes: [string, NonNullable<RouteAction['body']>][] = Object.values(groupActions).flatMap((group) =>
  [...group.actions.values()].flatMap((action) =>
    action.body ? [[action.key, action.body] as [string, NonNullable<RouteAction['body']>]] : [],
  ),
);

const detailsOf = (schema: NonNullable<RouteAction['body']>, body: unknown) => {
  try {
    parse(schema, body);
  } catch (error) {
    if (error instanceof ValidationError) return { message: error.message, details: error.details ?? [] };
    throw error;
  }
  return undefined;
};

// Names of Object.prototype's members, and the one JSON.parse keeps as an own key.
const prototypeNames = ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf', 'isPrototypeOf'];

describe("every route's body", () => {
  test('the routes with a body are all here', () => {
    expect(bodyRoutes.length).toBeGreaterThanOrEqual(12);
  });

  test.each(bodyRoutes)(
    '%s: a field named like an Object.prototype member is refused by its own name',
    (_key, schema) => {
      for (const name of prototypeNames) {
        const result = detailsOf(schema, JSON.parse(`{${JSON.stringify(name)}: 1}`));
        expect(result, name).toBeDefined();
        const detail = result?.details.find((entry) => entry.path === name);
        expect(detail?.message, name).toMatch(new RegExp(`^unknown field "${name.replace(/[$()]/g, '\\$&')}"`));
        expect(result?.message, name).not.toMatch(/native code|\[object Object\]/);
      }
    },
  );

  test.each(bodyRoutes)('%s: each absent field "is required", and nothing else is said of it', (_key, schema) => {
    const result = detailsOf(schema, {});
    for (const detail of result?.details ?? [])
      expect(detail, JSON.stringify(detail)).toMatchObject({ message: 'is required' });
  });
});

describe('absent ids are required, not malformed', () => {
  const bodyOf = (key: string) => bodyRoutes.find(([routeKey]) => routeKey === key)?.[1] as RouteAction['body'] & {};
  test.each([
    ['PUT /api/v1/projects/{slug}/customers/{customerId}', {}, 'planId'],
    ['POST /api/payments/checkout', { shareId: 'abcdefghijklmnop' }, 'planId'],
    ['POST /api/v1/projects/{slug}/events', { events: [{ eventId: 'e1', customerId: 'c1' }] }, 'events[0].featureId'],
    ['POST /api/payments/checkout/custom', { shareId: 'abcdefghijklmnop', features: [{}] }, 'features[0].featureId'],
    ['POST /api/v1/projects/{slug}/plans/{planId}/features', {}, 'featureId'],
    ['POST /api/v1/projects/{slug}/plans/{planId}/features', { features: [{}] }, 'features[0].featureId'],
  ])('%s %j: %s is required', (key, body, path) => {
    const result = detailsOf(bodyOf(key), body);
    expect(result?.details).toContainEqual({ path, message: 'is required' });
    expect(result?.message).toContain(`${path} is required`);
  });

  test('a present but malformed id still says what it must be', () => {
    const result = detailsOf(bodyOf('PUT /api/v1/projects/{slug}/customers/{customerId}'), { planId: 'x' });
    expect(result?.details).toContainEqual({ path: 'planId', message: 'must be a positive whole number' });
  });

  test("a plan feature's multiplier of the wrong type is told in the same words as every other field", () => {
    const result = detailsOf(bodyOf('POST /api/v1/projects/{slug}/plans/{planId}/features'), {
      featureId: 1,
      multiplier: 'x',
    });
    expect(result?.details).toEqual([{ path: 'multiplier', message: 'must be a number' }]);
  });
});
