import type { BillingInterval } from '#contract/enums.ts';
import { limits } from '#contract/limits.ts';
import { type CustomCheckout, loadShare, type PlanCheckout, startCheckout } from './api.ts';
import {
  type CustomChoice,
  clampCount,
  customAmount,
  discountText,
  type Formatter,
  formatter,
  limitText,
  planPriceText,
  priceText,
  trialText,
} from './display.ts';
import { h, uniqueId } from './dom.ts';
import { fillShadowRoot } from './sheets.ts';
import type { ShareData, SharedFeature, SharedPlan, Theme } from './types.ts';

let defaultBase = '';

/** Where the service is when an element names no `api-base`: main.ts sets it from the script's src. */
export function setDefaultBase(base: string): void {
  defaultBase = base;
}

const flexAlign = { left: 'flex-start', center: 'center', right: 'flex-end' } as const;
const textAlign = (value: string) => (value === 'left' || value === 'right' ? value : 'center');

/** Theme fields as custom properties on :host, where customCSS, ::part() rules and the host page can use them. */
const themeProperties: Array<[string, (theme: Theme) => string]> = [
  ['--pricing-font', (t) => t.fontFamily],
  ['--pricing-primary', (t) => t.primaryColor],
  ['--pricing-hover', (t) => t.hoverColor],
  ['--pricing-button-text', (t) => t.buttonTextColor],
  ['--pricing-radius', (t) => t.borderRadius],
  ['--pricing-card-bg', (t) => t.pricingBackgroundColor],
  ['--pricing-card-border', (t) => t.pricingBorderColor],
  ['--pricing-toggle-align', (t) => flexAlign[t.toggleAlign] ?? 'center'],
];

/**
 * `<pricing-table share-id="…">`: one project's pricing page in a shadow root. Attributes:
 * `share-id` (required), `api-base` (the service; default: where widget.js came from) and
 * `locale` (number formatting; default: the nearest `lang`, then the browser's language).
 * Nothing it does throws into the host page: every failure becomes a message in the widget.
 */
export class PricingTable extends HTMLElement {
  static observedAttributes = ['share-id', 'api-base', 'locale'];

  private readonly root: ShadowRoot;
  private interval: BillingInterval = 'month';
  private generation = 0;
  private loadQueued = false;
  /** Recompute every shown price, after the interval, a seat count or a quantity changed. */
  private refreshers: Array<() => void> = [];
  private pending: { button: HTMLElement; label: string } | undefined;

  constructor() {
    super();
    this.root = this.attachShadow({ mode: 'open' });
  }

  connectedCallback(): void {
    this.queueLoad();
    window.addEventListener('pageshow', this.onPageShow);
  }

  disconnectedCallback(): void {
    window.removeEventListener('pageshow', this.onPageShow);
  }

  attributeChangedCallback(_name: string, previous: string | null, value: string | null): void {
    if (previous !== value && this.isConnected) this.queueLoad();
  }

  /** Back from checkout through the browser's back/forward cache: the button must not stay busy. */
  private readonly onPageShow = (event: PageTransitionEvent) => {
    if (event.persisted) this.guard(() => this.settle());
  };

  /** Several attribute changes and the connection in one task make one request. */
  private queueLoad(): void {
    if (this.loadQueued) return;
    this.loadQueued = true;
    queueMicrotask(() => {
      this.loadQueued = false;
      this.guard(() => this.load());
    });
  }

  /** A listener whose failure, even an async one, becomes a message in the widget, never the page's error. */
  private on(target: EventTarget, type: 'click' | 'input' | 'change', listener: () => Promise<void> | void): void {
    target.addEventListener(type, () => this.guard(listener));
  }

  private guard(work: () => Promise<void> | void): void {
    try {
      Promise.resolve(work()).catch((error: unknown) => this.fail(error));
    } catch (error) {
      this.fail(error);
    }
  }

  private fail(error: unknown): void {
    console.warn('[pricing-table] could not show the pricing table', error);
    this.pending = undefined;
    this.showMessage('Pricing could not be shown.');
  }

  private get base(): string {
    return (this.getAttribute('api-base') || defaultBase).replace(/\/+$/, '');
  }

  private get locale(): string | undefined {
    return this.getAttribute('locale') || this.closest('[lang]')?.getAttribute('lang') || navigator.language;
  }

  private async load(): Promise<void> {
    if (!this.isConnected) return;
    const generation = ++this.generation;
    const shareId = this.getAttribute('share-id')?.trim();
    if (!shareId) {
      this.showMessage('This pricing table has no share-id.');
      return;
    }
    this.showMessage('Loading pricing…', { busy: true });
    const outcome = await loadShare(this.base, shareId);
    // A newer load (another share-id) or a removal wins over this one.
    if (generation !== this.generation || !this.isConnected) return;
    if (outcome.ok) this.render(outcome.value, shareId);
    else if (outcome.kind === 'network') this.showMessage('Pricing could not be loaded.', { retry: true });
    else this.showMessage('This pricing table is not available.');
  }

  private showMessage(text: string, { busy = false, retry = false } = {}): void {
    const box = h(
      'div',
      { class: 'message', role: 'status', 'aria-busy': busy ? 'true' : undefined },
      h('p', {}, text),
    );
    if (retry) {
      const again = h('button', { type: 'button', class: 'retry', part: 'retry' }, 'Try again');
      this.on(again, 'click', () => this.load());
      box.append(again);
    }
    fillShadowRoot(this.root, [box]);
  }

  private render(data: ShareData, shareId: string): void {
    const theme = data.themeSettings;
    const format = formatter(this.locale, data.currency);
    this.refreshers = [];
    this.pending = undefined;
    if (!data.annualDiscountEnabled) this.interval = 'month';

    const plans = h('div', { class: 'plans' });
    for (const plan of data.plans) plans.append(this.planCard(plan, data, shareId, format));
    if (data.features.length > 0) plans.append(this.customCard(data, shareId, format));

    fillShadowRoot(
      this.root,
      [h('div', { class: 'pricing', part: 'container' }, this.header(data), this.toggle(data, format), plans)],
      { properties: themeProperties.map(([name, read]) => [name, read(theme)]), customCss: theme.customCSS },
    );
    this.refresh();
  }

  private refresh(): void {
    for (const refresh of this.refreshers) refresh();
  }

  private header(data: ShareData): HTMLElement | null {
    const theme = data.themeSettings;
    const showName = theme.showProjectName && data.name;
    const showDescription = theme.showPricingHeader && data.pricingPageDescription;
    if (!showName && !showDescription) return null;
    const header = h('header', { class: 'header', part: 'header' });
    if (showName) {
      const title = h('h2', {}, data.name);
      title.style.textAlign = textAlign(theme.headerAlign);
      header.append(title);
    }
    if (showDescription) {
      const description = h('p', {}, data.pricingPageDescription);
      description.style.textAlign = textAlign(theme.descriptionAlign);
      header.append(description);
    }
    return header;
  }

  /** A switch (role="switch" on a real button): Tab reaches it, Space and Enter flip it. */
  private toggle(data: ShareData, format: Formatter): HTMLElement | null {
    if (!data.annualDiscountEnabled) return null;
    const labelId = uniqueId('annual');
    const save = discountText(data, format);
    const button = h('button', {
      type: 'button',
      class: 'switch',
      role: 'switch',
      'aria-checked': String(this.interval === 'year'),
      'aria-labelledby': labelId,
    });
    const announce = h('span', { class: 'sr-only', 'aria-live': 'polite' });
    this.on(button, 'click', () => {
      this.interval = this.interval === 'year' ? 'month' : 'year';
      button.setAttribute('aria-checked', String(this.interval === 'year'));
      announce.textContent = this.interval === 'year' ? 'Prices shown per year' : 'Prices shown per month';
      this.refresh();
    });
    const monthly = h('span', { 'aria-hidden': 'true' }, 'Monthly');
    const annual = h(
      'span',
      { id: labelId },
      'Annual billing',
      save && ' ',
      save && h('span', { class: 'save' }, save),
    );
    return h(
      'div',
      { class: 'toggle-row' },
      h('div', { class: 'toggle', part: 'toggle' }, monthly, button, annual, announce),
    );
  }

  private priceElement(): {
    element: HTMLElement;
    show(text: { amount: string; period: string; spoken: string }): void;
  } {
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

  private planCard(plan: SharedPlan, data: ShareData, shareId: string, format: Formatter): HTMLElement {
    const titleId = uniqueId('plan');
    const position = data.themeSettings.popularBadgePosition === 'inline' ? 'inline' : 'top';
    const badge = plan.isPopular && h('span', { class: `badge ${position}`, part: 'badge' }, 'Most popular');
    const card = h('article', {
      class: `card${plan.isPopular ? ` popular badge-${position}` : ''}`,
      part: 'card',
      'aria-labelledby': titleId,
      'data-plan-id': plan.id,
    });
    if (badge && position === 'top') card.append(badge);
    card.append(h('h3', { id: titleId }, plan.name, badge && position === 'inline' && badge));
    if (plan.description) card.append(h('p', { class: 'description' }, plan.description));

    const price = this.priceElement();
    const note = h('p', { class: 'note' });
    card.append(price.element, note);

    let seats = 1;
    if (plan.isPerUserPricing && !plan.isFree) {
      const input = h('input', {
        type: 'number',
        min: 1,
        max: limits.seatsMax,
        step: 1,
        value: 1,
        inputmode: 'numeric',
      });
      this.on(input, 'input', () => {
        seats = clampCount(input.value, 1, limits.seatsMax, seats);
        update();
      });
      this.on(input, 'change', () => {
        input.value = String(seats);
      });
      card.append(h('label', { class: 'count' }, 'Seats', input));
    }
    const update = () => {
      price.show(planPriceText(plan, this.interval, seats, data, format));
      const notes = [trialText(plan.freemiumDay), !plan.isFree && this.interval === 'year' ? 'Billed yearly' : ''];
      note.textContent = notes.filter(Boolean).join(' · ');
    };
    this.refreshers.push(update);

    card.append(
      h(
        'ul',
        { class: 'features', 'aria-label': `Features of ${plan.name}` },
        ...plan.features.map((feature) => {
          const limit = limitText(feature, format);
          return h(
            'li',
            { class: `feature ${feature.included ? 'included' : 'excluded'}`, part: 'feature' },
            h('span', { class: 'mark', 'aria-hidden': 'true' }, feature.included ? '✓' : '✕'),
            h(
              'span',
              {},
              h('span', { class: 'sr-only' }, feature.included ? 'Included: ' : 'Not included: '),
              feature.name,
              limit && h('span', { class: 'limit' }, ` · ${limit}`),
            ),
          );
        }),
      ),
    );

    // A free plan is not bought: it has nothing to check out.
    if (!plan.isFree) {
      const label = plan.freemiumDay > 0 ? 'Start free trial' : 'Get started';
      const error = h('p', { class: 'error', role: 'alert' });
      const button = h(
        'button',
        { type: 'button', class: 'button', part: 'button', 'aria-label': `${label}: ${plan.name}` },
        label,
      );
      this.on(button, 'click', () =>
        this.checkout(button, error, {
          shareId,
          planId: plan.id,
          billingInterval: this.interval,
          ...(plan.isPerUserPricing ? { seats } : {}),
        }),
      );
      card.append(button, error);
    }
    return card;
  }

  private customCard(data: ShareData, shareId: string, format: Formatter): HTMLElement {
    const titleId = uniqueId('custom');
    const chosen = new Map<number, CustomChoice>();
    const price = this.priceElement();
    price.element.setAttribute('aria-live', 'polite');
    const error = h('p', { class: 'error', role: 'alert' });
    const button = h('button', { type: 'button', class: 'button', part: 'button' }, 'Continue to checkout');

    const pick = h('div', { class: 'pick', role: 'group', 'aria-labelledby': titleId });
    for (const feature of data.features) pick.append(this.customChoice(feature, chosen, format, () => update()));

    const update = () => {
      const choices = [...chosen.values()];
      price.show(priceText(customAmount(choices, this.interval, data), this.interval, format));
      button.setAttribute('aria-disabled', String(choices.length === 0));
    };
    this.refreshers.push(update);

    this.on(button, 'click', () => {
      if (chosen.size === 0) {
        error.textContent = 'Choose at least one feature.';
        return;
      }
      return this.checkout(button, error, {
        shareId,
        billingInterval: this.interval,
        features: [...chosen.values()].map(({ feature, quantity }) =>
          feature.isCountable ? { featureId: feature.id, quantity } : { featureId: feature.id },
        ),
      });
    });

    return h(
      'article',
      { class: 'card custom-card', part: 'custom-card', 'aria-labelledby': titleId },
      h('h3', { id: titleId }, 'Custom plan'),
      h('p', { class: 'description' }, 'Pick the features you need.'),
      pick,
      price.element,
      button,
      error,
    );
  }

  private customChoice(
    feature: SharedFeature,
    chosen: Map<number, CustomChoice>,
    format: Formatter,
    changed: () => void,
  ): HTMLElement {
    const countPrice = feature.countableData?.countPrice ?? 0;
    const each =
      feature.isCountable && countPrice > 0
        ? `${format.money(feature.basePrice)}/month + ${format.unitMoney(countPrice)} per unit`
        : `${format.money(feature.basePrice)}/month`;
    const box = h('input', { type: 'checkbox' });
    const choice = h(
      'div',
      { class: 'choice', part: 'feature' },
      h('label', {}, box, h('span', {}, feature.name, h('span', { class: 'each' }, each))),
    );
    let quantity = feature.countableData?.usageCount ?? 0;
    let input: HTMLInputElement | undefined;
    if (feature.isCountable) {
      input = h('input', {
        type: 'number',
        min: 0,
        max: limits.usageCountMax,
        step: 1,
        value: quantity,
        inputmode: 'numeric',
        disabled: true,
      });
      const field = input;
      this.on(field, 'input', () => {
        quantity = clampCount(field.value, 0, limits.usageCountMax, quantity);
        if (chosen.has(feature.id)) chosen.set(feature.id, { feature, quantity });
        changed();
      });
      this.on(field, 'change', () => {
        field.value = String(quantity);
      });
      choice.append(
        h(
          'label',
          { class: 'count' },
          h('span', {}, 'Quantity', h('span', { class: 'sr-only' }, ` of ${feature.name}`)),
          field,
        ),
      );
    }
    this.on(box, 'change', () => {
      if (box.checked) chosen.set(feature.id, { feature, quantity });
      else chosen.delete(feature.id);
      if (input) input.disabled = !box.checked;
      changed();
    });
    return choice;
  }

  /** One checkout at a time in this widget; the button shows progress until the browser leaves. */
  private async checkout(button: HTMLElement, error: HTMLElement, body: PlanCheckout | CustomCheckout): Promise<void> {
    if (this.pending || button.getAttribute('aria-disabled') === 'true') return;
    this.pending = { button, label: button.textContent ?? '' };
    button.setAttribute('aria-busy', 'true');
    button.setAttribute('aria-disabled', 'true');
    button.textContent = 'Opening checkout…';
    error.textContent = '';
    const outcome = await startCheckout(this.base, body);
    if (outcome.ok) {
      window.location.assign(outcome.value.url);
      return;
    }
    this.settle();
    error.textContent = outcome.message;
  }

  /** The busy button back to itself. */
  private settle(): void {
    if (!this.pending) return;
    const { button, label } = this.pending;
    this.pending = undefined;
    button.removeAttribute('aria-busy');
    button.setAttribute('aria-disabled', 'false');
    button.textContent = label;
    this.refresh();
  }
}
