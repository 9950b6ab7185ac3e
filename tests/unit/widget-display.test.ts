import { describe, expect, test } from 'vitest';
import { featureMonthlyPrice, intervalPrice, planMonthlyPrice, toMinorUnits } from '#contract/pricing.ts';
import { defaultTheme } from '#domain/projects/theme.ts';
import { contrast, mutedOn, parseHex, textOn, toHex, WHITE } from '../../widget/src/colors.ts';
import {
  clampCount,
  customAmount,
  discountText,
  formatter,
  limitText,
  planAmount,
  planPriceText,
  priceText,
  trialText,
} from '../../widget/src/display.ts';
import { type MessageKey, supportedLanguages, translator } from '../../widget/src/i18n.ts';
import { en as englishMessages } from '../../widget/src/messages-en.ts';
import { themeProperties } from '../../widget/src/theme.ts';
import type { ShareData, SharedFeature, SharedPlan, Theme } from '../../widget/src/types.ts';

const plan = (overrides: Partial<SharedPlan> = {}): SharedPlan => ({
  id: 1,
  name: 'Pro',
  description: '',
  basePrice: 29,
  isFree: false,
  isPopular: false,
  freemiumDay: 0,
  isPerUserPricing: false,
  perUserMultiplier: 1,
  features: [],
  ...overrides,
});

const feature = (overrides: Partial<SharedFeature> = {}): SharedFeature => ({
  id: 1,
  name: 'Events',
  description: '',
  featureType: 'Usage Based',
  basePrice: 0,
  isCountable: false,
  countableData: null,
  ...overrides,
});

const data = (overrides: Partial<ShareData> = {}): ShareData =>
  ({
    currency: 'EUR',
    annualDiscount: 0.2,
    annualDiscountEnabled: true,
    plans: [],
    features: [],
    ...overrides,
  }) as ShareData;

const en = (currency = 'EUR') => formatter('en-US', currency);

describe('plan prices: the server’s math, rounded once to the minor unit', () => {
  test('monthly, yearly with the discount, and yearly without one', () => {
    expect(planAmount(plan(), 'month', 1, data())).toBe(29);
    expect(planAmount(plan(), 'year', 1, data())).toBe(278.4);
    expect(planAmount(plan(), 'year', 1, data({ annualDiscountEnabled: false }))).toBe(348);
  });

  test('per seat: each seat after the first at basePrice × multiplier', () => {
    const perSeat = plan({ isPerUserPricing: true, perUserMultiplier: 0.5 });
    expect(planAmount(perSeat, 'month', 4, data())).toBe(72.5);
    expect(planAmount(perSeat, 'year', 4, data())).toBe(696);
  });

  test('half up at the minor unit, once: 9.99 yearly at 15% off is 101.90 (101.898)', () => {
    expect(planAmount(plan({ basePrice: 9.99 }), 'year', 1, data({ annualDiscount: 0.15 }))).toBe(101.9);
  });

  test('zero-decimal currencies show whole units, as Stripe charges them', () => {
    const yen = data({ currency: 'JPY', annualDiscount: 0.15 });
    expect(planAmount(plan({ basePrice: 999 }), 'year', 1, yen)).toBe(10190);
    // A year of ¥10,190: ¥849 a month (849.17 rounded to the yen) large, the charge beneath.
    expect(priceText(10190, 'year', en('JPY'))).toMatchObject({ amount: '¥849', billed: '¥10,190 billed yearly' });
  });

  test.each([
    [29, 0.2, 3, 'year'],
    [12.5, 0.1, 7, 'month'],
    [0.99, 0.333, 13, 'year'],
  ] as const)(
    'matches what checkout charges: %s with %s off, %s seats, per %s',
    (basePrice, discount, seats, interval) => {
      const p = plan({ basePrice, isPerUserPricing: true, perUserMultiplier: 0.75 });
      const d = data({ annualDiscount: discount });
      const charged = toMinorUnits(intervalPrice(planMonthlyPrice(p, seats), interval, d), 'EUR');
      expect(Math.round(planAmount(p, interval, seats, d) * 100)).toBe(charged);
    },
  );
});

describe('custom plan totals', () => {
  const events = feature({
    id: 2,
    basePrice: 1,
    isCountable: true,
    countableData: { usageCount: 1000, condition: 'Up to', countPrice: 0.001, eventAggregationMethod: 'count' },
  });
  const sso = feature({ id: 3, name: 'SSO', basePrice: 20, featureType: 'Standart' });

  test('sums per month, then applies the interval, then rounds once', () => {
    const choices = [
      { feature: events, quantity: 12345 },
      { feature: sso, quantity: 0 },
    ];
    // 1 + 12.345 + 20 = 33.345 → 33.35 (one rounding of the sum, not of each feature)
    expect(customAmount(choices, 'month', data())).toBe(33.35);
    // 33.345 × 12 × 0.8 = 320.112 → 320.11
    expect(customAmount(choices, 'year', data())).toBe(320.11);
    const monthly = featureMonthlyPrice({ basePrice: 1, isCountable: true, countPrice: 0.001 }, 12345) + 20;
    expect(Math.round(customAmount(choices, 'year', data()) * 100)).toBe(
      toMinorUnits(intervalPrice(monthly, 'year', data()), 'EUR'),
    );
  });

  test('a non-countable feature ignores a quantity; nothing chosen is zero', () => {
    expect(customAmount([{ feature: sso, quantity: 99 }], 'month', data())).toBe(20);
    expect(customAmount([], 'year', data())).toBe(0);
  });
});

describe('texts', () => {
  test('prices: whole amounts without .00, others with the currency’s decimals, and a spoken form', () => {
    expect(priceText(29, 'month', en('USD'))).toEqual({
      amount: '$29',
      period: '/month',
      billed: '',
      spoken: '$29 per month',
    });
    // Per year: the month's share large, the exact yearly charge beneath.
    expect(priceText(278.4, 'year', en('USD'))).toEqual({
      amount: '$23.20',
      period: '/month',
      billed: '$278.40 billed yearly',
      spoken: '$23.20 per month, billed yearly as $278.40',
    });
    expect(priceText(406.51, 'year', en('USD')).amount).toBe('$33.88'); // 33.8758…
    expect(priceText(null, 'year', en())).toEqual({ amount: 'Free', period: '', billed: '', spoken: 'Free' });
    expect(formatter('de-DE', 'EUR').money(1234.5)).toBe('1.234,50\u00a0€');
  });

  test('a free plan is Free; a per-seat price says for how many seats', () => {
    expect(planPriceText(plan({ isFree: true, basePrice: 0 }), 'year', 1, data(), en()).amount).toBe('Free');
    const perSeat = plan({ basePrice: 10, isPerUserPricing: true, perUserMultiplier: 1 });
    expect(planPriceText(perSeat, 'month', 3, data(), en()).spoken).toBe('€30 per month, for 3 seats');
    expect(planPriceText(perSeat, 'month', 1, data(), en()).spoken).toBe('€10 per month, for 1 seat');
  });

  test('limits use the feature’s condition: "Up to 1,000", "Unlimited", or the bare number', () => {
    expect(limitText({ limit: 1000, condition: 'Up to' }, en())).toBe('Up to 1,000');
    expect(limitText({ limit: 1500000, condition: 'Max' }, en())).toBe('Max 1,500,000');
    expect(limitText({ limit: 12, condition: 'Unlimited' }, en())).toBe('Unlimited');
    expect(limitText({ limit: 12, condition: ' unlimited ' }, en())).toBe('unlimited');
    expect(limitText({ limit: 2.5, condition: '' }, en())).toBe('2.5');
    expect(limitText({ limit: null, condition: 'Up to' }, en())).toBe('');
    expect(limitText({ limit: null, condition: null }, en())).toBe('');
  });

  test('trial days, the annual saving, and unit prices below a cent', () => {
    expect(trialText(14, en())).toBe('14-day free trial');
    expect(trialText(0, en())).toBe('');
    expect(discountText(data({ annualDiscount: 0.2 }), en())).toBe('Save 20%');
    expect(discountText(data({ annualDiscount: 0.125 }), en())).toBe('Save 12.5%');
    expect(discountText(data({ annualDiscount: 0 }), en())).toBe('');
    expect(discountText(data({ annualDiscountEnabled: false }), en())).toBe('');
    expect(en('USD').unitMoney(0.001)).toBe('$0.001');
    expect(en('USD').unitMoney(2)).toBe('$2');
  });

  test('words follow the locale’s language, English for any other', () => {
    const de = formatter('de-DE', 'EUR');
    expect(priceText(278.4, 'year', de)).toEqual({
      amount: '23,20\u00a0€',
      period: '/Monat',
      billed: '278,40\u00a0€ jährlich abgerechnet',
      spoken: '23,20\u00a0€ pro Monat, jährlich abgerechnet als 278,40\u00a0€',
    });
    expect(trialText(30, formatter('fr', 'EUR'))).toBe('Essai gratuit de 30 jours');
    expect(discountText(data(), formatter('es-ES', 'EUR'))).toBe('Ahorra 20\u00a0%');
    expect(formatter('pt-BR', 'BRL').t('free')).toBe('Grátis');
    expect(formatter('ja-JP', 'JPY').t('showAll', { n: 12 })).toBe('12 件の機能をすべて表示');
    expect(formatter('nl-NL', 'EUR').t('free')).toBe('Free');
  });

  test('every catalog has every message, with the same placeholders as English', () => {
    const english = translator('en');
    for (const language of supportedLanguages) {
      const t = translator(language);
      for (const key of Object.keys(englishMessages) as MessageKey[]) {
        const holes = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
        const raw = t(key, { a: '{a}', b: '{b}', n: '{n}', name: '{name}' });
        expect(raw, `${language}.${key}`).not.toBe('');
        expect(holes(raw), `${language}.${key}`).toEqual(
          holes(english(key, { a: '{a}', b: '{b}', n: '{n}', name: '{name}' })),
        );
      }
    }
  });

  test('an unknown currency or locale never throws', () => {
    expect(formatter('en-US', 'NOT-A-CURRENCY').money(5.5)).toBe('5.5 NOT-A-CURRENCY');
    expect(formatter('!!', 'EUR').money(5)).toMatch(/5/);
  });
});

test('typed-in counts become whole numbers within bounds, or keep the last good value', () => {
  expect(clampCount('3', 1, 100, 1)).toBe(3);
  expect(clampCount('3.9', 1, 100, 1)).toBe(3);
  expect(clampCount('0', 1, 100, 1)).toBe(1);
  expect(clampCount('1e9', 1, 100, 1)).toBe(100);
  expect(clampCount('', 1, 100, 7)).toBe(7);
  expect(clampCount('abc', 0, 100, 7)).toBe(7);
  expect(clampCount('-5', 0, 100, 7)).toBe(0);
});

describe('theme colours that always read', () => {
  const bg = (hex: string) => parseHex(hex) ?? WHITE;

  test('text on a background: dark on light, light on dark, 4.5:1 or more, muted too', () => {
    for (const background of ['#FFFFFF', '#111827', '#F3F4F6', '#4F46E5', '#808080', '#FDE68A', '#0F766E', '#000']) {
      const back = bg(background);
      const text = textOn(back);
      expect(contrast(text, back), background).toBeGreaterThanOrEqual(4.5);
      expect(contrast(mutedOn(text, back), back), background).toBeGreaterThanOrEqual(4.5);
    }
    expect(toHex(textOn(bg('#111827')))).toBe('#f9fafb');
    expect(toHex(textOn(bg('#FFFFFF')))).toBe('#111827');
  });

  test('#RGB, #RRGGBB and #RRGGBBAA (laid over what is under it); WCAG’s ratios', () => {
    expect(parseHex('#fff')).toEqual([255, 255, 255]);
    expect(parseHex('#11182780', [255, 255, 255])).toEqual([136, 139, 147]);
    expect(parseHex('red')).toBeUndefined();
    expect(contrast([0, 0, 0], [255, 255, 255])).toBeCloseTo(21, 5);
    expect(contrast(bg('#6B7280'), bg('#F3F4F6'))).toBeCloseTo(4.39, 2); // the failing header
  });

  test('theme properties: null colours derived from the card, set ones kept, the primary as text only where it reads', () => {
    const theme = {
      pricingBackgroundColor: '#111827',
      primaryColor: '#4F46E5',
      textColor: null,
      mutedTextColor: '#D1D5DB',
      toggleAlign: 'center',
    } as Theme;
    const properties = new Map(themeProperties(theme, WHITE));
    expect(properties.get('--pricing-text')).toBe('#f9fafb');
    expect(properties.get('--pricing-muted')).toBe('#d1d5db');
    // #4F46E5 on #111827 is 2.6:1: the check marks take the text colour instead.
    expect(properties.get('--pricing-accent')).toBe('#f9fafb');
    expect(properties.get('--pricing-page-text')).toBe('#111827');
    expect(new Map(themeProperties(theme, bg('#0B1020'))).get('--pricing-page-text')).toBe('#f9fafb');
  });

  test('hover: a shade of the primary colour unless the owner chose one; the default pair as it is', () => {
    const hover = (primaryColor: string, hoverColor: string) =>
      new Map(themeProperties({ ...defaultTheme, primaryColor, hoverColor } as Theme, WHITE)).get('--pricing-hover');
    expect(hover('#4F46E5', '#4338CA')).toBe('#4338CA');
    // Only primaryColor set: 15% towards black, not the default indigo.
    expect(hover('#0F766E', '#4338CA')).toBe('#0d645e');
    expect(hover('#0f766e', '#4338ca')).toBe('#0d645e');
    expect(hover('#0F766E', '#7C2D12')).toBe('#7C2D12');
    // A near-black primary gets a lighter hover: a darker one would not show.
    expect(hover('#111111', '#4338CA')).toBe('#414141');
  });
});
