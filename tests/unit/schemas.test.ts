import { describe, expect, test } from 'vitest';
import { ValidationError } from '#domain/errors.ts';
import { CreateFeatureBody, UpdateFeatureBody } from '#domain/features/schemas.ts';
import { currency, httpUrl, multiplier, pathIdString, positiveIdString, price } from '#domain/fields.ts';
import { AddPlanFeaturesBody, CreatePlanBody } from '#domain/plans/schemas.ts';
import { CreateProjectBody, ThemePatch, UpdateProjectBody } from '#domain/projects/schemas.ts';
import { parse } from '#domain/validation.ts';

const fails = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
};

describe('parse', () => {
  test('names every offending field with a readable path', () => {
    const error = fails(() => parse(CreatePlanBody, { name: '', features: [{ featureId: 1 }, { featureId: 'x' }] }));
    expect(error.details?.map((d) => d.path)).toEqual(['name', 'features[1].featureId']);
    expect(error.message).toMatch(/^Invalid request body: name must .+ \(and 1 more\)\.$/);
  });

  test('a non-object body is one error at the root', () => {
    const error = fails(() => parse(CreateProjectBody, []));
    expect(error.details).toEqual([{ path: '', message: expect.any(String) }]);
  });
});

describe('fields', () => {
  test.each(['USD', 'eur', 'JPY', 'chf'])('currency %s is accepted and upper-cased', (code) => {
    expect(currency().parse(code)).toBe(code.toUpperCase());
  });
  test.each(['US', 'USDX', 'ZZZ', '123', ''])('currency %j is rejected', (code) => {
    expect(currency().safeParse(code).success).toBe(false);
  });
  test.each(['https://a.example/x?y=1', 'http://localhost:3000/ok'])('url %s is accepted', (url) => {
    expect(httpUrl().parse(url)).toBe(url);
  });
  test.each(['ftp://a.example', 'javascript:alert(1)', '/relative', 'example.com', ''])('url %j is rejected', (url) => {
    expect(httpUrl().safeParse(url).success).toBe(false);
  });
  test('numbers too small for DynamoDB (below 1e-130) are refused, not written', () => {
    expect(price().safeParse(0).success).toBe(true);
    expect(price().safeParse(1e-9).success).toBe(true);
    for (const tiny of [1e-10, 1e-131, 5e-324]) {
      expect(price().safeParse(tiny).success).toBe(false);
      expect(multiplier().safeParse(tiny).success).toBe(false);
      expect(UpdateProjectBody().safeParse({ annualDiscount: tiny }).success).toBe(false);
      expect(UpdateFeatureBody().safeParse({ usageCount: tiny }).success).toBe(false);
    }
  });
  test('path ids: positive whole numbers only', () => {
    expect(pathIdString().parse('42')).toBe(42);
    expect(pathIdString().parse(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
    for (const bad of ['0', '-1', '1.5', '1e3', '01', 'abc', '', '99999999999999999', '9999999999999999', undefined]) {
      expect(pathIdString().safeParse(bad).success).toBe(false);
    }
  });
  test('query ids: positive whole numbers only', () => {
    expect(positiveIdString().parse('7')).toBe(7);
    for (const bad of ['0', '-1', '1,2', ' 1', 'x']) expect(positiveIdString().safeParse(bad).success).toBe(false);
  });
});

describe('theme', () => {
  test.each(['#abc', '#AABBCC', '#aabbcc80'])('color %s is accepted', (color) => {
    expect(ThemePatch().safeParse({ primaryColor: color }).success).toBe(true);
  });
  test.each(['abc', '#abcd', '#ggg', 'red', 'rgb(0,0,0)', '#abcdef1'])('color %s is rejected', (color) => {
    expect(ThemePatch().safeParse({ primaryColor: color }).success).toBe(false);
  });
  test.each(['0', '12px', '0.5rem', '1em', '50%'])('radius %s is accepted', (radius) => {
    expect(ThemePatch().safeParse({ borderRadius: radius }).success).toBe(true);
  });
  test.each(['12', 'px', '-1px', '1vw', 'calc(1px)', '12px;'])('radius %s is rejected', (radius) => {
    expect(ThemePatch().safeParse({ borderRadius: radius }).success).toBe(false);
  });
  test('unknown theme keys are refused, with the nearest known key', () => {
    expect(ThemePatch().parse({ primaryColor: '#fff' })).toEqual({ primaryColor: '#fff' });
    const error = fails(() => parse(ThemePatch, { primaryColour: '#fff', sneaky: 'x' }));
    expect(error.details).toEqual([
      { path: 'primaryColour', message: 'unknown field "primaryColour"; did you mean "primaryColor"?' },
      { path: 'sneaky', message: 'unknown field "sneaky"' },
    ]);
  });
});

describe('projects', () => {
  test('create needs a name; read-only fields are dropped; themeSettings is read as theme', () => {
    expect(CreateProjectBody().safeParse({}).success).toBe(false);
    expect(CreateProjectBody().parse({ name: ' A ', id: 1, shareId: 'x', _count: {}, features: [] })).toEqual({
      name: 'A',
    });
    expect(CreateProjectBody().parse({ name: 'A', themeSettings: { primaryColor: '#000' } })).toEqual({
      name: 'A',
      theme: { primaryColor: '#000' },
    });
    // Both sent: theme wins, themeSettings is what GET returned and is ignored.
    expect(
      CreateProjectBody().parse({
        name: 'A',
        theme: { primaryColor: '#111' },
        themeSettings: { primaryColor: '#000' },
      }),
    ).toEqual({ name: 'A', theme: { primaryColor: '#111' } });
  });
  test('update: null clears URLs, but not other fields', () => {
    expect(UpdateProjectBody().parse({ checkoutSuccessUrl: null })).toEqual({ checkoutSuccessUrl: null });
    expect(UpdateProjectBody().safeParse({ name: null }).success).toBe(false);
    expect(UpdateProjectBody().safeParse({ annualDiscount: 1 }).success).toBe(false);
  });
});

describe('features', () => {
  test('Standard is read as Standart', () => {
    expect(CreateFeatureBody().parse({ name: 'a', basePrice: 0, featureType: 'Standard' }).featureType).toBe(
      'Standart',
    );
  });
  test('countableData in a body is ignored (flat fields write)', () => {
    expect(UpdateFeatureBody().parse({ countableData: { usageCount: 5 } })).toEqual({});
  });
  test('basePrice is required on create and must be >= 0', () => {
    expect(CreateFeatureBody().safeParse({ name: 'a' }).success).toBe(false);
    expect(CreateFeatureBody().safeParse({ name: 'a', basePrice: -0.01 }).success).toBe(false);
  });
});

describe('add plan features', () => {
  test('the single form becomes a batch of one, with multiplier 1 by default', () => {
    expect(AddPlanFeaturesBody().parse({ featureId: 3 })).toEqual({ features: [{ featureId: 3, multiplier: 1 }] });
  });
  test('the batch form keeps multipliers', () => {
    expect(AddPlanFeaturesBody().parse({ features: [{ featureId: 3, multiplier: 2 }] })).toEqual({
      features: [{ featureId: 3, multiplier: 2 }],
    });
  });
  test('errors speak of the form that was used', () => {
    const single = fails(() => parse(AddPlanFeaturesBody, { multiplier: 2 }));
    expect(single.details?.[0]?.path).toBe('featureId');
    const batch = fails(() => parse(AddPlanFeaturesBody, { features: [{}] }));
    expect(batch.details?.[0]?.path).toBe('features[0].featureId');
    const empty = fails(() => parse(AddPlanFeaturesBody, { features: [] }));
    expect(empty.details?.[0]?.path).toBe('features');
  });
});
