import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  featureMonthlyPrice,
  fromMinorUnits,
  intervalPrice,
  minorUnit,
  planMonthlyPrice,
  toMinorUnits,
} from '#contract/pricing.ts';
import { withSessionIdPlaceholder } from '#domain/payments/account.ts';

const flat = { basePrice: 29, isPerUserPricing: false, perUserMultiplier: 1 };
const perSeat = { basePrice: 10, isPerUserPricing: true, perUserMultiplier: 0.5 };
const noDiscount = { annualDiscount: 0.2, annualDiscountEnabled: false };
const discount = { annualDiscount: 0.2, annualDiscountEnabled: true };

describe('plan prices (decisions.md)', () => {
  it('a flat plan costs its base price whatever the seats', () => {
    expect(planMonthlyPrice(flat)).toBe(29);
    expect(planMonthlyPrice(flat, 7)).toBe(29);
  });

  it('a per-user plan adds basePrice × multiplier for each seat past the first', () => {
    expect(planMonthlyPrice(perSeat, 1)).toBe(10);
    expect(planMonthlyPrice(perSeat, 2)).toBe(15);
    expect(planMonthlyPrice(perSeat, 5)).toBe(30);
    expect(planMonthlyPrice({ ...perSeat, perUserMultiplier: 1 }, 5)).toBe(50);
    expect(planMonthlyPrice({ ...perSeat, perUserMultiplier: 0 }, 5)).toBe(10);
  });

  it('a year is twelve months, less the annual discount only when it is enabled', () => {
    expect(intervalPrice(29, 'month', discount)).toBe(29);
    expect(intervalPrice(29, 'year', noDiscount)).toBe(348);
    expect(intervalPrice(29, 'year', discount)).toBeCloseTo(278.4, 10);
  });

  it('a custom feature costs its base price plus countPrice per unit when countable', () => {
    expect(featureMonthlyPrice({ basePrice: 5, isCountable: false, countPrice: 2 }, 10)).toBe(5);
    expect(featureMonthlyPrice({ basePrice: 5, isCountable: true, countPrice: 0.01 }, 1000)).toBe(15);
    expect(featureMonthlyPrice({ basePrice: 0, isCountable: true, countPrice: 0.5 }, 0)).toBe(0);
  });
});

describe('minor units', () => {
  it('uses cents for most currencies, whole units for zero-decimal ones', () => {
    expect(toMinorUnits(29, 'USD')).toBe(2900);
    expect(toMinorUnits(19.99, 'eur')).toBe(1999);
    expect(toMinorUnits(1500, 'JPY')).toBe(1500);
    expect(toMinorUnits(1500.5, 'JPY')).toBe(1501);
    expect(toMinorUnits(990, 'KRW')).toBe(990);
    expect(minorUnit('CLP').factor).toBe(1);
  });

  it("follows Stripe's special cases: three-decimal currencies end in 0, ISK is whole króna in cents", () => {
    expect(toMinorUnits(5.124, 'KWD')).toBe(5120);
    expect(toMinorUnits(5.125, 'KWD')).toBe(5130);
    expect(toMinorUnits(12.34, 'ISK')).toBe(1200);
    expect(toMinorUnits(12.5, 'ISK')).toBe(1300);
  });

  it('rounds half up once, after removing binary noise', () => {
    expect(toMinorUnits(1.005, 'USD')).toBe(101);
    expect(toMinorUnits(0.285, 'USD')).toBe(29);
    expect(toMinorUnits(1.004999, 'USD')).toBe(100);
    // 19.99 × 12 × 0.8 = 191.904
    expect(toMinorUnits(intervalPrice(19.99, 'year', discount), 'USD')).toBe(19190);
    // 0.1 + 0.2 is 0.30000000000000004 in binary
    expect(toMinorUnits(0.1 + 0.2, 'USD')).toBe(30);
  });

  it('round-trips to major units', () => {
    expect(fromMinorUnits(27840, 'USD')).toBe(278.4);
    expect(fromMinorUnits(1500, 'JPY')).toBe(1500);
    expect(fromMinorUnits(5130, 'KWD')).toBe(5.13);
  });

  it('never moves an amount by more than half a step', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99_999_999 }), fc.constantFrom('USD', 'JPY', 'KWD', 'ISK'), (n, c) => {
        const { factor, step } = minorUnit(c);
        const major = n / factor;
        const minor = toMinorUnits(major, c);
        expect(minor % step).toBe(0);
        expect(Math.abs(minor - n)).toBeLessThanOrEqual(step / 2);
      }),
    );
  });
});

describe('success URL', () => {
  it('adds the session placeholder to the query without encoding its braces', () => {
    expect(withSessionIdPlaceholder('https://a.example/thanks')).toBe(
      'https://a.example/thanks?session_id={CHECKOUT_SESSION_ID}',
    );
    expect(withSessionIdPlaceholder('https://a.example/thanks?ref=pricing&x=1')).toBe(
      'https://a.example/thanks?ref=pricing&x=1&session_id={CHECKOUT_SESSION_ID}',
    );
    expect(withSessionIdPlaceholder('https://a.example/thanks?')).toBe(
      'https://a.example/thanks?session_id={CHECKOUT_SESSION_ID}',
    );
    expect(withSessionIdPlaceholder('https://a.example/t?a=1#done')).toBe(
      'https://a.example/t?a=1&session_id={CHECKOUT_SESSION_ID}#done',
    );
  });
});
