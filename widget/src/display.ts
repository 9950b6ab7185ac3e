/**
 * What the widget shows, as pure functions of the share data: the same price math as
 * checkout (shared/contract/pricing.ts, bundled as is), rounded once to the
 * currency's minor unit the way the server rounds what it charges.
 */
import type { BillingInterval } from '#contract/enums.ts';
import {
  featureMonthlyPrice,
  fromMinorUnits,
  intervalPrice,
  planMonthlyPrice,
  toMinorUnits,
} from '#contract/pricing.ts';
import { type Translate, translator } from './i18n.ts';
import type { ShareData, SharedFeature, SharedPlan } from './types.ts';

/** The amount checkout will charge, in major units, exactly as the server computes it. */
export function chargedAmount(monthly: number, interval: BillingInterval, data: ShareData): number {
  return fromMinorUnits(toMinorUnits(intervalPrice(monthly, interval, data), data.currency), data.currency);
}

export function planAmount(plan: SharedPlan, interval: BillingInterval, seats: number, data: ShareData): number {
  return chargedAmount(planMonthlyPrice(plan, seats), interval, data);
}

export interface CustomChoice {
  feature: SharedFeature;
  /** Units of a countable feature; ignored for the others. */
  quantity: number;
}

/** The custom plan's total: the sum per month first, then the interval, then one rounding. */
export function customAmount(choices: CustomChoice[], interval: BillingInterval, data: ShareData): number {
  const monthly = choices.reduce(
    (sum, { feature, quantity }) =>
      sum + featureMonthlyPrice({ ...feature, countPrice: feature.countableData?.countPrice ?? 0 }, quantity),
    0,
  );
  return chargedAmount(monthly, interval, data);
}

export interface Formatter {
  /** The words of the same locale. */
  t: Translate;
  money(amount: number): string;
  /** A yearly charge as a month's share of it, rounded half up to the minor unit. */
  monthOf(yearly: number): number;
  /** A price per unit, which may be a fraction of the minor unit: $0.001. */
  unitMoney(amount: number): string;
  number(value: number): string;
  percent(fraction: number): string;
}

/**
 * Intl formatting in the page's locale. Whole amounts drop their ".00" (€29, not €29.00);
 * anything else shows the currency's own fraction digits. An unknown currency code falls
 * back to "29.50 XYZ" rather than throwing into the host page.
 */
export function formatter(locale: string | undefined, currency: string): Formatter {
  const safeLocale = supportedLocale(locale);
  let money: (amount: number) => string;
  let unitMoney: (amount: number) => string;
  try {
    const whole = new Intl.NumberFormat(safeLocale, {
      style: 'currency',
      currency,
      minimumFractionDigits: 0,
      maximumFractionDigits: 0,
    });
    const exact = new Intl.NumberFormat(safeLocale, { style: 'currency', currency });
    const fine = new Intl.NumberFormat(safeLocale, { style: 'currency', currency, maximumFractionDigits: 6 });
    money = (amount) => (Number.isInteger(amount) ? whole : exact).format(amount);
    unitMoney = (amount) => (Number.isInteger(amount) ? whole : fine).format(amount);
  } catch {
    const plain = new Intl.NumberFormat(safeLocale, { maximumFractionDigits: 6 });
    money = (amount) => `${plain.format(amount)} ${currency}`;
    unitMoney = money;
  }
  const numbers = new Intl.NumberFormat(safeLocale);
  const percents = new Intl.NumberFormat(safeLocale, { style: 'percent', maximumFractionDigits: 2 });
  return {
    t: translator(safeLocale ?? locale),
    money,
    monthOf: (yearly) => fromMinorUnits(toMinorUnits(yearly / 12, currency), currency),
    unitMoney,
    number: (value) => numbers.format(value),
    percent: (fraction) => percents.format(fraction),
  };
}

function supportedLocale(locale: string | undefined): string | undefined {
  if (!locale) return undefined;
  try {
    return Intl.NumberFormat.supportedLocalesOf([locale])[0];
  } catch {
    return undefined;
  }
}

export interface PriceText {
  /** "€29", "Free"; in annual mode the monthly equivalent of the yearly charge. */
  amount: string;
  /** Shown after the amount: "/month", or nothing for a free plan. */
  period: string;
  /** Beneath the amount in annual mode: "€278.40 billed yearly". */
  billed: string;
  /** The whole price for a screen reader: "€29 per month". */
  spoken: string;
}

/**
 * `amount` is what checkout charges per interval. Per year, as Stripe's pricing table shows
 * it, the month's share is large and the yearly charge beneath it.
 */
export function priceText(amount: number | null, interval: BillingInterval, format: Formatter): PriceText {
  const { t } = format;
  if (amount === null) return { amount: t('free'), period: '', billed: '', spoken: t('free') };
  const charged = format.money(amount);
  if (interval === 'month') {
    return { amount: charged, period: t('perMonth'), billed: '', spoken: t('spokenMonth', { a: charged }) };
  }
  const month = format.money(format.monthOf(amount));
  return {
    amount: month,
    period: t('perMonth'),
    billed: t('billedYearly', { a: charged }),
    spoken: t('spokenYearly', { a: month, b: charged }),
  };
}

export function planPriceText(
  plan: SharedPlan,
  interval: BillingInterval,
  seats: number,
  data: ShareData,
  format: Formatter,
): PriceText {
  if (plan.isFree) return priceText(null, interval, format);
  const text = priceText(planAmount(plan, interval, seats, data), interval, format);
  if (!plan.isPerUserPricing) return text;
  const forSeats = format.t(seats === 1 ? 'seat' : 'seats', { n: format.number(seats) });
  return { ...text, spoken: `${text.spoken}, ${forSeats}` };
}

/** "Up to 1,000", "Unlimited", or "" when the feature has no limit to show. */
export function limitText(feature: { limit: number | null; condition: string | null }, format: Formatter): string {
  if (feature.limit === null) return '';
  const condition = (feature.condition ?? '').trim();
  if (/^unlimited$/i.test(condition)) return condition;
  const amount = format.number(feature.limit);
  return condition ? `${condition} ${amount}` : amount;
}

export function trialText(days: number, format: Formatter): string {
  if (days <= 0) return '';
  return format.t('trial', { n: format.number(days) });
}

/** "Save 20%" next to the annual option, or "" when there is nothing to save. */
export function discountText(data: ShareData, format: Formatter): string {
  if (!data.annualDiscountEnabled || data.annualDiscount <= 0) return '';
  return format.t('save', { n: format.percent(data.annualDiscount) });
}

/** A typed-in count as the whole number checkout accepts: 1 to max seats, 0 to max units. */
export function clampCount(raw: string | number, min: number, max: number, fallback: number): number {
  const value = typeof raw === 'number' ? raw : raw.trim() === '' ? Number.NaN : Number(raw);
  if (!Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.floor(value)));
}
