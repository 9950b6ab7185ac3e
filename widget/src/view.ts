import type { BillingInterval } from '#contract/enums.ts';
import type { CustomCheckout, PlanCheckout, TokenCustomer } from './api.ts';
import type { Formatter, PriceText } from './display.ts';
import { h, uniqueId } from './dom.ts';
import type { ShareData } from './types.ts';

export interface CustomerSession {
  token: string;
  customer: TokenCustomer;
  /** Draws the table again once a change is made. */
  reload(): void;
}

/** What the parts of one rendered table (toggle, cards) need from the element that draws them. */
export interface View {
  readonly data: ShareData;
  readonly shareId: string;
  readonly format: Formatter;
  /** The service's base URL. */
  readonly base: string;
  /** With a customer token whose customer holds a plan: plan changes instead of checkout. */
  readonly session?: CustomerSession | undefined;
  /** The interval prices are shown for now; it changes when the visitor flips the toggle. */
  interval(): BillingInterval;
  /** A listener whose failure, even an async one, becomes a message in the widget, never the page's error. */
  on(target: EventTarget, type: 'click' | 'input' | 'change', listener: () => Promise<void> | void): void;
  /** Runs `update` once the table is drawn, and again after the interval, a seat count or a quantity changed. */
  watch(update: () => void): void;
  checkout(button: HTMLElement, error: HTMLElement, body: PlanCheckout | CustomCheckout): Promise<void>;
}

/**
 * The price block (`element`): the price (part "price"), read aloud as one phrase and shown as
 * an amount and a period, and in annual mode the yearly charge beneath.
 */
export function priceElement() {
  const amount = h('span', { class: 'amount' });
  const period = h('span', { class: 'period' });
  const spoken = h('span', { class: 'sr-only' });
  const billed = h('p', { class: 'note billed', 'aria-hidden': 'true' });
  const element = h(
    'div',
    { class: 'pricing' },
    h('p', { class: 'price', part: 'price' }, h('span', { 'aria-hidden': 'true' }, amount, period), spoken),
    billed,
  );
  return {
    element,
    show(text: PriceText) {
      amount.textContent = text.amount;
      period.textContent = text.period;
      spoken.textContent = text.spoken;
      billed.textContent = text.billed;
    },
  };
}

/** Below a buy button that cannot be used: why, tied to the button for screen readers. */
export function unavailableReason(button: HTMLElement, view: View): HTMLElement | null {
  if (view.data.paymentsConnected) return null;
  const id = uniqueId('reason');
  button.setAttribute('aria-disabled', 'true');
  button.setAttribute('aria-describedby', id);
  return h('p', { class: 'reason', id }, view.format.t('noPayments'));
}
