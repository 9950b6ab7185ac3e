import { limits } from '#contract/limits.ts';
import { clampCount, limitText, planPriceText, trialText } from './display.ts';
import { h, uniqueId } from './dom.ts';
import { changeAction } from './plan-change.ts';
import type { SharedPlan } from './types.ts';
import { priceElement, unavailableReason, type View } from './view.ts';

/** Cards list this many features; a control shows the rest. */
export const FEATURES_SHOWN = 8;

/**
 * One plan, in the rows every card shares (styles.ts: name, description, price, seats,
 * button, features), so they line up across a row of cards whatever the text lengths.
 */
export function planCard(plan: SharedPlan, view: View): HTMLElement {
  const { data, format } = view;
  const { t } = format;
  const titleId = uniqueId('plan');
  const position = data.themeSettings.popularBadgePosition === 'inline' ? 'inline' : 'top';
  const badge = plan.isPopular && h('span', { class: `badge ${position}`, part: 'badge' }, t('popular'));
  const current = view.session?.customer.planId === plan.id;
  const card = h('article', {
    class: `card${plan.isPopular ? ` popular badge-${position}` : ''}${current ? ' current' : ''}`,
    part: 'card',
    'aria-labelledby': titleId,
    'aria-current': current ? 'true' : undefined,
    'data-plan-id': plan.id,
  });
  if (badge && position === 'top') card.append(badge);
  card.append(h('h3', { id: titleId, part: 'name' }, plan.name, badge && position === 'inline' && badge));
  if (plan.description) card.append(h('p', { class: 'description' }, plan.description));

  const price = priceElement();
  price.element.append(h('p', { class: 'note trial' }, trialText(plan.freemiumDay, format)));
  card.append(price.element);

  let seats = current ? (view.session?.customer.seats ?? 1) : 1;
  if (plan.isPerUserPricing && !plan.isFree) {
    const input = h('input', {
      type: 'number',
      min: 1,
      max: limits.seatsMax,
      step: 1,
      value: seats,
      inputmode: 'numeric',
    });
    view.on(input, 'input', () => {
      seats = clampCount(input.value, 1, limits.seatsMax, seats);
      update();
    });
    view.on(input, 'change', () => {
      input.value = String(seats);
    });
    card.append(h('label', { class: 'count extra' }, t('seatsLabel'), input));
  }
  const update = () => price.show(planPriceText(plan, view.interval(), seats, data, format));
  view.watch(update);

  const action = view.session
    ? changeAction(view.session, view, plan, () => seats)
    : plan.isFree
      ? signup(plan, view)
      : buy(plan, view, () => seats);
  if (action) card.append(action);
  card.append(featureList(plan, view, !action));
  return card;
}

/** A free plan is not bought: its button goes to the project's sign-up page, or there is none. */
function signup(plan: SharedPlan, view: View): HTMLElement | null {
  const url = view.data.signupUrl;
  if (!url || !/^https?:\/\//i.test(url)) return null;
  const label = view.format.t('getStarted');
  return h(
    'div',
    { class: 'action' },
    h('a', { class: 'button', part: 'button', href: url, 'aria-label': `${label}: ${plan.name}` }, label),
  );
}

function buy(plan: SharedPlan, view: View, seats: () => number): HTMLElement {
  const label = view.format.t(plan.freemiumDay > 0 ? 'startTrial' : 'getStarted');
  const error = h('p', { class: 'error', role: 'alert' });
  const button = h(
    'button',
    { type: 'button', class: 'button', part: 'button', 'aria-label': `${label}: ${plan.name}` },
    label,
  );
  view.on(button, 'click', () =>
    view.checkout(button, error, {
      shareId: view.shareId,
      planId: plan.id,
      billingInterval: view.interval(),
      ...(plan.isPerUserPricing ? { seats: seats() } : {}),
    }),
  );
  return h('div', { class: 'action' }, button, unavailableReason(button, view), error);
}

/**
 * What the plan includes first, then what it does not; past FEATURES_SHOWN a disclosure
 * button shows the rest (focus stays on it, the list is its aria-controls).
 */
function featureList(plan: SharedPlan, view: View, wide: boolean): HTMLElement {
  const { format } = view;
  const { t } = format;
  const ordered = [...plan.features.filter((f) => f.included), ...plan.features.filter((f) => !f.included)];
  const listId = uniqueId('features');
  const items = ordered.map((feature, index) => {
    const limit = limitText(feature, format);
    return h(
      'li',
      {
        class: `feature ${feature.included ? 'included' : 'excluded'}`,
        part: 'feature',
        hidden: index >= FEATURES_SHOWN,
      },
      h('span', { class: 'mark', 'aria-hidden': 'true' }, feature.included ? '✓' : '✕'),
      h(
        'span',
        {},
        h('span', { class: 'sr-only' }, t(feature.included ? 'included' : 'excluded')),
        feature.name,
        limit && h('span', { class: 'limit' }, ` · ${limit}`),
      ),
    );
  });
  const block = h(
    'div',
    { class: `details${wide ? ' wide' : ''}` },
    h(
      'ul',
      { class: 'features', id: listId, part: 'features', 'aria-label': t('featuresOf', { name: plan.name }) },
      ...items,
    ),
  );
  if (items.length > FEATURES_SHOWN) {
    const more = h(
      'button',
      { type: 'button', class: 'more', part: 'show-all', 'aria-expanded': 'false', 'aria-controls': listId },
      t('showAll', { n: format.number(items.length) }),
    );
    view.on(more, 'click', () => {
      const open = more.getAttribute('aria-expanded') !== 'true';
      for (const [index, item] of items.entries()) item.hidden = !open && index >= FEATURES_SHOWN;
      more.setAttribute('aria-expanded', String(open));
      more.textContent = open ? t('showFewer') : t('showAll', { n: format.number(items.length) });
    });
    block.append(more);
  }
  return block;
}
