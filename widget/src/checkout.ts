import { type CustomCheckout, type PlanCheckout, startCheckout } from './api.ts';

/** One checkout at a time in this widget; the button shows progress until the browser leaves. */
export class Checkout {
  private pending: { button: HTMLElement; label: string } | undefined;
  private readonly settled: () => void;

  /** `settled` runs when a busy button is back to itself (the shown prices are then refreshed). */
  constructor(settled: () => void) {
    this.settled = settled;
  }

  async start(
    base: string,
    button: HTMLElement,
    error: HTMLElement,
    body: PlanCheckout | CustomCheckout,
  ): Promise<void> {
    if (this.pending || button.getAttribute('aria-disabled') === 'true') return;
    this.pending = { button, label: button.textContent ?? '' };
    button.setAttribute('aria-busy', 'true');
    button.setAttribute('aria-disabled', 'true');
    button.textContent = 'Opening checkout…';
    error.textContent = '';
    const outcome = await startCheckout(base, body);
    if (outcome.ok) {
      window.location.assign(outcome.value.url);
      return;
    }
    this.settle();
    error.textContent = outcome.message;
  }

  /** The busy button back to itself. */
  settle(): void {
    if (!this.pending) return;
    const { button, label } = this.pending;
    this.pending = undefined;
    button.removeAttribute('aria-busy');
    button.setAttribute('aria-disabled', 'false');
    button.textContent = label;
    this.settled();
  }

  /** The table was drawn again or replaced by a message: the busy button is gone. */
  forget(): void {
    this.pending = undefined;
  }
}
