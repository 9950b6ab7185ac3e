import type { BillingInterval } from '#contract/enums.ts';
import type { CustomCheckout, PlanCheckout } from './api.ts';
import type { Formatter } from './display.ts';
import { h } from './dom.ts';
import type { ShareData } from './types.ts';

/** What the parts of one rendered table (toggle, cards) need from the element that draws them. */
export interface View {
  readonly data: ShareData;
  readonly shareId: string;
  readonly format: Formatter;
  /** The interval prices are shown for now; it changes when the visitor flips the toggle. */
  interval(): BillingInterval;
  /** A listener whose failure, even an async one, becomes a message in the widget, never the page's error. */
  on(target: EventTarget, type: 'click' | 'input' | 'change', listener: () => Promise<void> | void): void;
  /** Runs `update` once the table is drawn, and again after the interval, a seat count or a quantity changed. */
  watch(update: () => void): void;
  checkout(button: HTMLElement, error: HTMLElement, body: PlanCheckout | CustomCheckout): Promise<void>;
}

export interface PriceElement {
  element: HTMLElement;
  show(text: { amount: string; period: string; spoken: string }): void;
}

/** A price read aloud as one phrase, shown as an amount and a period. */
export function priceElement(): PriceElement {
  const amount = h('span', { class: 'amount' });
  const period = h('span', { class: 'period' });
  const spoken = h('span', { class: 'sr-only' });
  const element = h(
    'p',
    { class: 'price', part: 'price' },
    h('span', { 'aria-hidden': 'true' }, amount, period),
    spoken,
  );
  return {
    element,
    show(text) {
      amount.textContent = text.amount;
      period.textContent = text.period;
      spoken.textContent = text.spoken;
    },
  };
}
