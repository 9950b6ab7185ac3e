import { describe, expect, test } from 'vitest';
import { ValidationError } from '#domain/errors.ts';
import { CreateFeatureBody, UpdateFeatureBody } from '#domain/features/schemas.ts';
import { CustomCheckoutBody, PlanCheckoutBody } from '#domain/payments/schemas.ts';
import {
  AddPlanFeaturesBody,
  CreatePlanBody,
  DuplicatePlanBody,
  UpdatePlanBody,
  UpdatePlanFeatureBody,
} from '#domain/plans/schemas.ts';
import { UpdateProjectBody } from '#domain/projects/schemas.ts';
import { closestField, editDistance } from '#domain/suggest.ts';
import { parse } from '#domain/validation.ts';

const detailsOf = (schema: Parameters<typeof parse>[0], body: unknown) => {
  try {
    parse(schema, body);
  } catch (error) {
    if (error instanceof ValidationError) return { message: error.message, details: error.details };
    throw error;
  }
  throw new Error('expected a validation error');
};

describe('suggestions', () => {
  test('edit distance counts insertions, deletions, substitutions and swaps, ignoring case', () => {
    expect(editDistance('isPoplar', 'isPopular')).toBe(1);
    expect(editDistance('primaryColour', 'primaryColor')).toBe(1);
    expect(editDistance('baseprice', 'basePrice')).toBe(0);
    expect(editDistance('naem', 'name')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
  });
  test('the nearest known field within a third of its length, else none', () => {
    expect(closestField('isPoplar', ['isPopular', 'isVisible', 'isFree'])).toBe('isPopular');
    expect(closestField('colour', ['color', 'name'])).toBe('color');
    expect(closestField('zzzzzz', ['name', 'basePrice'])).toBeUndefined();
    expect(closestField('x'.repeat(500), ['name'])).toBeUndefined();
  });
});

describe('unknown fields are 400s that say what was meant', () => {
  test.each([
    ['isPoplar', 'isPopular', UpdatePlanBody, { isPoplar: true }],
    ['descripton', 'description', CreatePlanBody, { name: 'P', descripton: '' }],
    ['annualDiscountEnable', 'annualDiscountEnabled', UpdateProjectBody, { annualDiscountEnable: true }],
    ['theme.primaryColour', 'primaryColor', UpdateProjectBody, { theme: { primaryColour: '#000' } }],
    ['usagecount', 'usageCount', CreateFeatureBody, { name: 'F', basePrice: 1, usagecount: 3 }],
    ['multipler', 'multiplier', UpdatePlanFeatureBody, { multipler: 2 }],
    ['multipler', 'multiplier', AddPlanFeaturesBody, { featureId: 1, multipler: 2 }],
    ['features[0].featureID', 'featureId', AddPlanFeaturesBody, { features: [{ featureID: 1 }] }],
    ['seat', 'seats', PlanCheckoutBody, { shareId: 's', planId: 1, seat: 2 }],
    ['features[0].qty', undefined, CustomCheckoutBody, { shareId: 's', features: [{ featureId: 1, qty: 2 }] }],
    ['nmae', 'name', DuplicatePlanBody, { nmae: 'x' }],
  ] as const)('names %s (suggests %s)', (path, suggestion, schema, body) => {
    const { details } = detailsOf(schema, body);
    const field = path
      .split(/[.[\]]/)
      .filter(Boolean)
      .at(-1);
    expect(details).toContainEqual({
      path,
      message: `unknown field "${field}"${suggestion ? `; did you mean "${suggestion}"?` : ''}`,
    });
  });

  test('every unknown field is named, beside the other problems', () => {
    const { details, message } = detailsOf(CreatePlanBody, { isPoplar: true, fooBar: 1, basePrice: -1 });
    expect(details?.map((detail) => detail.path).sort()).toEqual(['basePrice', 'fooBar', 'isPoplar', 'name']);
    expect(message).toMatch(/^Invalid request body: /);
  });

  test('a body of many unknown, long names is answered briefly', () => {
    const body = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`${'k'.repeat(300)}${i}`, i]));
    const { details } = detailsOf(UpdatePlanBody, body);
    expect(details?.length).toBeLessThanOrEqual(20);
    expect(Math.max(...(details ?? []).map((detail) => detail.message.length))).toBeLessThan(200);
  });

  test('"__proto__" and "constructor" are refused, and set nothing', () => {
    const body = JSON.parse('{"__proto__": {"isPopular": true}, "constructor": 1}');
    // zod names these two by their values rather than their keys; what matters is the refusal.
    expect(detailsOf(UpdatePlanBody, body).details).toHaveLength(2);
    expect(({} as { isPopular?: boolean }).isPopular).toBeUndefined();
  });
});

describe('what GET returns is accepted and ignored (GET-edit-PUT)', () => {
  test('a plan as GET returns it', () => {
    const got = {
      id: 4,
      name: 'Pro',
      isPopular: true,
      planFeatures: [{ id: 1, multiplier: 1, feature: {} }],
      createdAt: 'x',
      updatedAt: 'y',
    };
    expect(parse(UpdatePlanBody, got)).toEqual({ name: 'Pro', isPopular: true });
  });
  test('a feature as GET returns it: countableData is ignored, the flat fields are read', () => {
    const got = { id: 1, name: 'F', basePrice: 2, countableData: { usageCount: 5 }, createdAt: 'x', updatedAt: 'y' };
    expect(parse(UpdateFeatureBody, got)).toEqual({ name: 'F', basePrice: 2 });
  });
  test('a project as GET returns it: themeSettings is read as theme, slug and counts ignored', () => {
    const got = {
      id: 1,
      slug: 'acme',
      shareId: 'abc',
      name: 'Acme',
      paymentsConnected: false,
      paymentsMode: null,
      _count: { features: 0, pricingPlans: 0 },
      themeSettings: { primaryColor: '#000000' },
      features: [],
      pricingPlans: [],
    };
    expect(parse(UpdateProjectBody, got)).toEqual({ name: 'Acme', theme: { primaryColor: '#000000' } });
  });
  test('a read-only field is still refused where no GET returns it (checkout)', () => {
    expect(detailsOf(PlanCheckoutBody, { shareId: 's', planId: 1, id: 3 }).details).toContainEqual({
      path: 'id',
      message: 'unknown field "id"',
    });
  });
  test("a checkout's variant and experimentId are ignored: the server computes both from the visitor id", () => {
    const body = { shareId: 's', planId: 1, visitor: 'v1', variant: 'b', experimentId: 9 };
    expect(parse(PlanCheckoutBody, body)).toEqual({ shareId: 's', planId: 1, visitor: 'v1', billingInterval: 'month' });
    expect(detailsOf(PlanCheckoutBody, { ...body, basePrice: 1 }).details).toContainEqual({
      path: 'basePrice',
      message: 'unknown field "basePrice"',
    });
  });
});

describe('messages for people, one per field', () => {
  test('a missing required field "is required"', () => {
    const { message, details } = detailsOf(CreatePlanBody, {});
    expect(details).toEqual([{ path: 'name', message: 'is required' }]);
    expect(message).toBe('Invalid request body: name is required.');
  });
  test('annualDiscount: 2 is one message that explains the scale', () => {
    const { details } = detailsOf(UpdateProjectBody, { annualDiscount: 2 });
    expect(details).toEqual([{ path: 'annualDiscount', message: 'must be below 1 (0.2 means 20% off)' }]);
  });
  test.each([
    [{ name: 5 }, 'name', 'must be a string'],
    [{ isPopular: 'yes' }, 'isPopular', 'must be true or false'],
    [{ basePrice: '9' }, 'basePrice', 'must be a number'],
  ])('%j: %s %s', (body, path, message) => {
    expect(detailsOf(UpdatePlanBody, body).details).toEqual([{ path, message }]);
  });
  test('no message leaks a validator internal', () => {
    const bodies = [{}, { name: null }, { name: [] }, { features: {} }, { features: [{}] }, { features: [null] }];
    for (const body of bodies) {
      for (const detail of detailsOf(CreatePlanBody, body).details ?? []) {
        expect(detail.message).not.toMatch(/Invalid input|nonoptional|expected .+, received/);
      }
    }
  });
});
