import type { BillingInterval } from '#contract/enums.ts';
import { loadCustomer, loadShare, namesExperiment, recordView } from './api.ts';
import { checkoutFlow } from './checkout.ts';
import { mix, parseComputed, type Rgb, WHITE } from './colors.ts';
import { customCard } from './custom-plan.ts';
import { formatter } from './display.ts';
import { h } from './dom.ts';
import { header, toggle } from './header.ts';
import { type MessageKey, type Translate, translator } from './i18n.ts';
import { planCard } from './plan-card.ts';
import { holding } from './plan-change.ts';
import { fillShadowRoot } from './sheets.ts';
import { pageProperties, themeProperties } from './theme.ts';
import type { ShareData } from './types.ts';
import type { CustomerSession, View } from './view.ts';
import { visitorId } from './visitor.ts';

/**
 * The colour the host page paints behind the widget: the nearest ancestor backgrounds (across
 * shadow roots) laid over white, the canvas of a page that sets none.
 */
function pageBackground(from: Element): Rgb {
  const layers: Array<{ rgb: Rgb; alpha: number }> = [];
  let node: Element | null = from;
  while (node) {
    const layer = parseComputed(getComputedStyle(node).backgroundColor);
    if (layer && layer.alpha > 0) {
      layers.push(layer);
      if (layer.alpha >= 1) break;
    }
    const parent: ParentNode | null = node.parentNode;
    node = parent instanceof ShadowRoot ? parent.host : node.parentElement;
  }
  return layers.reduceRight<Rgb>((under, { rgb, alpha }) => mix(under, rgb, alpha), WHITE);
}

let defaultBase = '';

/** Where the service is when an element names no `api-base`: main.ts sets it from the script's src. */
export function setDefaultBase(base: string): void {
  defaultBase = base;
}

/**
 * `<pricing-table share-id="…">`: one project's pricing page in a shadow root. Attributes:
 * `share-id` (required), `api-base` (the service; default: where widget.js came from) and
 * `locale` (labels and number formatting; default: the nearest `lang`, then the browser's language) and
 * `customer-id` (the host's own id for the signed-in buyer; checkout links the sale to it) and
 * `customer-token` (minted by the host's backend: the customer's plan shows as current, the
 * others change it in place, with a preview first; plan-change.ts).
 * Nothing it does throws into the host page: every failure becomes a message in the widget.
 */
export class PricingTable extends HTMLElement {
  static observedAttributes = ['share-id', 'api-base', 'locale', 'customer-id', 'customer-token'];

  private readonly root: ShadowRoot;
  private interval: BillingInterval = 'month';
  private generation = 0;
  private loadQueued = false;
  /** Recompute every shown price, after the interval, a seat count or a quantity changed. */
  private refreshers: Array<() => void> = [];
  private readonly checkout = checkoutFlow(
    () => this.refresh(),
    () => ({ opening: this.t('opening'), network: this.t('network') }),
  );
  /** Words in the element's language, chosen at each load. */
  private t: Translate = translator(undefined);

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
    if (event.persisted) this.guard(() => this.checkout.settle());
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
    this.checkout.forget();
    this.showMessage('showFailed');
  }

  private get base(): string {
    return (this.getAttribute('api-base') || defaultBase).replace(/\/+$/, '');
  }

  /** The element's `locale`, else the nearest `lang`, else the browser's language. */
  private get locale(): string | undefined {
    return this.getAttribute('locale') || this.closest('[lang]')?.getAttribute('lang') || navigator.language;
  }

  private async load(): Promise<void> {
    if (!this.isConnected) return;
    const generation = ++this.generation;
    this.t = translator(this.locale);
    const shareId = this.getAttribute('share-id')?.trim();
    if (!shareId) {
      this.showMessage('noShareId');
      return;
    }
    this.showMessage('loading', { busy: true });
    const token = this.getAttribute('customer-token')?.trim();
    const [shared, customer] = await Promise.all([
      loadShare(this.base, shareId),
      token ? loadCustomer(this.base, shareId, token) : undefined,
    ]);
    // A newer load (another share-id) or a removal wins over this one.
    if (generation !== this.generation || !this.isConnected) return;
    // The first read is the one everyone shares, so the CDN answers it; only a running experiment
    // (named in its Pricing-Experiment header) makes the page ask again for this visitor's own.
    // That answer replaces the first even when it fails: checkout charges the visitor's variant,
    // so the control's prices must not stand in for it.
    const outcome = namesExperiment(shared) ? await loadShare(this.base, shareId, visitorId()) : shared;
    if (generation !== this.generation || !this.isConnected) return;
    // A token that is refused (expired, another project's) leaves the table as it is without one.
    if (customer && !customer.ok) console.warn('[pricing-table] customer-token refused:', customer.message);
    const session: CustomerSession | undefined =
      token && customer?.ok ? { token, customer: customer.value, reload: () => this.queueLoad() } : undefined;
    if (outcome.ok && outcome.value.experiment) recordView(this.base, shareId, visitorId());
    if (outcome.ok) this.render(outcome.value, shareId, holding(session));
    else if (outcome.kind === 'network') this.showMessage('loadFailed', { retry: true });
    else this.showMessage('unavailable');
  }

  /** Loading and error states, in the widget's font and in colours that read on the host page. */
  private showMessage(text: MessageKey, { busy = false, retry = false } = {}): void {
    const box = h(
      'div',
      { class: 'message', part: 'message', role: 'status', 'aria-busy': busy ? 'true' : undefined },
      h('p', {}, this.t(text)),
    );
    if (retry) {
      const again = h('button', { type: 'button', class: 'retry', part: 'retry' }, this.t('retry'));
      this.on(again, 'click', () => this.load());
      box.append(again);
    }
    fillShadowRoot(this.root, [box], { properties: pageProperties(pageBackground(this)) });
  }

  private render(data: ShareData, shareId: string, session?: CustomerSession): void {
    const theme = data.themeSettings;
    const format = formatter(this.locale, data.currency);
    this.refreshers = [];
    this.checkout.forget();
    if (!data.annualDiscountEnabled) this.interval = 'month';
    if (session?.customer.billingInterval) this.interval = session.customer.billingInterval;
    const view: View = {
      data,
      shareId,
      format,
      base: this.base,
      session,
      interval: () => this.interval,
      on: (target, type, listener) => this.on(target, type, listener),
      watch: (update) => this.refreshers.push(update),
      checkout: (button, error, body) => {
        const customerId = this.getAttribute('customer-id')?.trim();
        // A plan's price may be the visitor's experiment variant's: the service computes it from the id.
        const priced = 'planId' in body ? { ...body, visitor: visitorId() } : body;
        return this.checkout.start(this.base, button, error, customerId ? { ...priced, customerId } : priced);
      },
    };

    const plans = h('div', { class: 'plans' });
    for (const plan of data.plans) plans.append(planCard(plan, view));
    if (data.features.length > 0) plans.append(customCard(view));

    fillShadowRoot(
      this.root,
      [h('div', { class: 'pricing', part: 'container' }, header(data), toggle(view, this.choose), plans)],
      { properties: themeProperties(theme, pageBackground(this)), customCss: theme.customCSS },
    );
    this.refresh();
  }

  private readonly choose = (interval: BillingInterval) => {
    this.interval = interval;
    this.refresh();
  };

  private refresh(): void {
    for (const refresh of this.refreshers) refresh();
  }
}
