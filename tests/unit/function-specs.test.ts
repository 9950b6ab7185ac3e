import { describe, expect, test } from 'vitest';
import { routes } from '#functions/routes.ts';
import { groupNames, groupSpecs } from '#shared/function-specs.ts';

describe('group specs', () => {
  test.each(groupNames)('%s: handed the keyring exactly when its spec uses the payment-key KMS key', (group) => {
    const spec = groupSpecs[group];
    const ports: readonly string[] = spec.ports;
    expect(ports.includes('keyring')).toBe(spec.paymentKeys !== 'none');
  });

  test('every group of the route table has a spec, and every spec serves a route', () => {
    expect(new Set(routes.map((route) => route.group))).toEqual(new Set(groupNames));
  });
});
