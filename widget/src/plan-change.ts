import { planMonthlyPrice } from '#contract/pricing.ts';
import { type ChangePreview, type CheckoutSession, type TokenCustomer, tokenCall } from './api.ts';
import { h, uniqueId } from './dom.ts';
import type { SharedPlan } from './types.ts';
import type { CustomerSession, View } from './view.ts';

/**
 * With a customer token (lifecycle.md §2): the customer's card says "Current plan" and offers
 * the billing portal; every other card's button says Upgrade or Downgrade (by monthly price at
 * the customer's interval) and opens a dialog with the preview's amount due today and what
 * each period then costs, which confirms the change. A native modal <dialog>: focus moves into
 * it and back, Escape closes it, the page behind is inert.
 */

const live = (customer: TokenCustomer) =>
  customer.planId !== null && customer.status !== null && !['canceled', 'incomplete_expired'].includes(customer.status);

/** The customer's session, if it holds a live plan of this page. */
export const holding = (session: CustomerSession | undefined) =>
  session && live(session.customer) ? session : undefined;

/** Busy while `work` runs; its failure message (the service's own) under the button. */
async function busy(button: HTMLElement, error: HTMLElement, label: string, work: () => Promise<string | undefined>) {
  if (button.getAttribute('aria-busy') === 'true') return;
  const before = button.textContent ?? '';
  button.setAttribute('aria-busy', 'true');
  button.textContent = label;
  error.textContent = '';
  try {
    const failed = await work();
    if (failed) error.textContent = failed;
  } finally {
    button.removeAttribute('aria-busy');
    button.textContent = before;
  }
}

/** The current card's action: its "Current plan" mark and the billing portal. */
function manage(session: CustomerSession, view: View): HTMLElement {
  const { t } = view.format;
  const error = h('p', { class: 'error', role: 'alert' });
  const button = h('button', { type: 'button', class: 'button', part: 'button manage' }, t('manage'));
  view.on(button, 'click', () =>
    busy(button, error, t('opening'), async () => {
      const outcome = await tokenCall(view.base, session.token, 'portal', { shareId: view.shareId });
      if (!outcome.ok) return outcome.status === 0 ? t('network') : outcome.message;
      window.location.assign((outcome.value as CheckoutSession).url);
      return undefined;
    }),
  );
  const { customer } = session;
  const pending = view.data.plans.find((p) => p.id === customer.pendingPlanId);
  const note = customer.cancelAtPeriodEnd ? t('cancels') : pending ? t('pending', { name: pending.name }) : '';
  return h(
    'div',
    { class: 'action' },
    h('p', { class: 'current', part: 'current' }, t('currentPlan')),
    note && h('p', { class: 'note' }, note),
    button,
    error,
  );
}

/** The dialog of one change: the preview's amounts, then the change itself on confirm. */
function confirmDialog(session: CustomerSession, view: View, plan: SharedPlan, preview: ChangePreview, body: object) {
  const { t, money } = view.format;
  const titleId = uniqueId('change');
  const error = h('p', { class: 'error', role: 'alert' });
  const confirm = h('button', { type: 'button', class: 'button', autofocus: true }, t('confirm'));
  const back = h('button', { type: 'button', class: 'retry' }, t('back'));
  const dialog = h(
    'dialog',
    { class: 'change', part: 'dialog', 'aria-labelledby': titleId },
    h('h3', { id: titleId }, t('changeTo', { name: plan.name })),
    h('p', {}, t('dueToday', { a: money(preview.amountDue) })),
    h('p', { class: 'note' }, t('thenEach', { a: money(preview.nextPeriodAmount) })),
    error,
    h('div', { class: 'dialog-actions' }, back, confirm),
  );
  view.on(back, 'click', () => dialog.close());
  dialog.addEventListener('close', () => dialog.remove());
  view.on(confirm, 'click', () =>
    busy(confirm, error, t('updating'), async () => {
      const outcome = await tokenCall(view.base, session.token, 'subscription', body as Record<string, unknown>);
      if (!outcome.ok) return outcome.status === 0 ? t('network') : outcome.message;
      dialog.close();
      session.reload();
      return undefined;
    }),
  );
  return dialog;
}

/**
 * The action of a card while the page shows a customer's plans: "Current plan" and the portal
 * on its own plan's card, Upgrade or Downgrade on the others.
 */
export function changeAction(session: CustomerSession, view: View, plan: SharedPlan, seats: () => number) {
  const { customer } = session;
  if (plan.id === customer.planId) return manage(session, view);
  const { t } = view.format;
  const held = view.data.plans.find((p) => p.id === customer.planId);
  const monthly = (p: SharedPlan, count: number) => (p.isFree ? 0 : planMonthlyPrice(p, count));
  const up = !held || monthly(plan, seats()) > monthly(held, customer.seats);
  const label = t(up ? 'upgrade' : 'downgrade');
  const error = h('p', { class: 'error', role: 'alert' });
  const button = h(
    'button',
    {
      type: 'button',
      class: 'button',
      part: 'button',
      'aria-label': `${label}: ${plan.name}`,
      'aria-haspopup': 'dialog',
    },
    label,
  );
  view.on(button, 'click', () =>
    busy(button, error, t('updating'), async () => {
      const body = {
        shareId: view.shareId,
        planId: plan.id,
        ...(plan.isPerUserPricing ? { seats: seats() } : {}),
      };
      const outcome = await tokenCall(view.base, session.token, 'subscription/preview', body);
      if (!outcome.ok) return outcome.status === 0 ? t('network') : outcome.message;
      const dialog = confirmDialog(session, view, plan, outcome.value as ChangePreview, body);
      button.after(dialog);
      dialog.addEventListener('close', () => button.focus());
      dialog.showModal();
      return undefined;
    }),
  );
  return h('div', { class: 'action' }, button, error);
}
