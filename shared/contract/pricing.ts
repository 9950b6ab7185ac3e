/**
 * The price math, and nothing else: no I/O, nothing from outside the
 * contract, so the widget can bundle the very same functions and show exactly what checkout
 * will charge.
 */
import type { BillingInterval } from './enums.ts';

export interface PlanPricing {
  basePrice: number;
  isPerUserPricing: boolean;
  perUserMultiplier: number;
}

export interface AnnualDiscount {
  annualDiscount: number;
  annualDiscountEnabled: boolean;
}

export interface FeaturePricing {
  basePrice: number;
  isCountable: boolean;
  countPrice: number;
}

/** Per month: the base price, and for per-user plans each seat past the first at basePrice × multiplier. */
export function planMonthlyPrice(plan: PlanPricing, seats = 1): number {
  if (!plan.isPerUserPricing) return plan.basePrice;
  return plan.basePrice * (1 + (seats - 1) * plan.perUserMultiplier);
}

/** A custom plan's feature per month: its base price, plus countPrice per unit when countable. */
export function featureMonthlyPrice(feature: FeaturePricing, quantity: number): number {
  return feature.isCountable ? feature.basePrice + feature.countPrice * quantity : feature.basePrice;
}

/** A monthly price for the billing interval: a year is twelve months, less the discount when enabled. */
export function intervalPrice(monthly: number, interval: BillingInterval, discount: AnnualDiscount): number {
  if (interval === 'month') return monthly;
  return discount.annualDiscountEnabled ? monthly * 12 * (1 - discount.annualDiscount) : monthly * 12;
}

/**
 * Stripe's zero-decimal currencies (amounts are whole units). Three-decimal ones must end in
 * 0, and ISK stays two-decimal in the API but only accepts whole króna (multiples of 100).
 */
const zeroDecimal = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'JPY',
  'KMF',
  'KRW',
  'MGA',
  'PYG',
  'RWF',
  'UGX',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]);
const threeDecimal = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

interface MinorUnit {
  /** Minor units per major unit in Stripe's API. */
  factor: number;
  /** Amounts must be a multiple of this many minor units. */
  step: number;
}

export function minorUnit(currency: string): MinorUnit {
  const code = currency.toUpperCase();
  if (zeroDecimal.has(code)) return { factor: 1, step: 1 };
  if (threeDecimal.has(code)) return { factor: 1000, step: 10 };
  if (code === 'ISK') return { factor: 100, step: 100 };
  return { factor: 100, step: 1 };
}

/**
 * A major-unit amount in the currency's minor unit, rounded once, half up, to the step the
 * currency allows. `toPrecision(12)` first strips binary noise, so 1.005 × 100 (which is
 * 100.49999…) rounds to 101 as a person would expect.
 */
export function toMinorUnits(amount: number, currency: string): number {
  const { factor, step } = minorUnit(currency);
  const scaled = Number((amount * factor).toPrecision(12)) / step;
  return Math.round(Number(scaled.toPrecision(12))) * step;
}

export function fromMinorUnits(minor: number, currency: string): number {
  return minor / minorUnit(currency).factor;
}
