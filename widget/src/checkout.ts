import { type CustomCheckout, type PlanCheckout, startCheckout } from './api.ts';

/**
 * One checkout at a time in this widget; the button shows progress until the browser leaves.
 * `settled` runs when a busy button is back to itself (the shown prices are then refreshed).
 */
export function checkoutFlow(settled: () => void, words: () => { opening: string; network: string }) {
  let pending: { button: HTMLElement; label: string } | undefined;
  /** The busy button back to itself. */
  const settle = () => {
    if (!pending) return;
    const { button, label } = pending;
    pending = undefined;
    button.removeAttribute('aria-busy');
    button.setAttribute('aria-disabled', 'false');
    button.textContent = label;
    settled();
  };
  return {
    async start(base: string, button: HTMLElement, error: HTMLElement, body: PlanCheckout | CustomCheckout) {
      if (pending || button.getAttribute('aria-disabled') === 'true') return;
      pending = { button, label: button.textContent ?? '' };
      button.setAttribute('aria-busy', 'true');
      button.setAttribute('aria-disabled', 'true');
      button.textContent = words().opening;
      error.textContent = '';
      const outcome = await startCheckout(base, body);
      if (outcome.ok) {
        window.location.assign(outcome.value.url);
        return;
      }
      settle();
      // The service's own message when it answered; the visitor's language when it could not be reached.
      error.textContent = outcome.status === 0 ? words().network : outcome.message;
    },
    settle,
    /** The table was drawn again or replaced by a message: the busy button is gone. */
    forget() {
      pending = undefined;
    },
  };
}
