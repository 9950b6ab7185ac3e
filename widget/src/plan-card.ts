import { limits } from '#contract/limits.ts';
import { clampCount, limitText, planPriceText, trialText } from './display.ts';
import { h, uniqueId } from './dom.ts';
import type { SharedPlan } from './types.ts';
import { priceElement, type View } from './view.ts';

/** One plan: its price (per seat when it has seats), what it includes, and its checkout button. */
export function planCard(plan: SharedPlan, view: View): HTMLElement {
  const { data, format } = view;
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

  const price = priceElement();
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
    view.on(input, 'input', () => {
      seats = clampCount(input.value, 1, limits.seatsMax, seats);
      update();
    });
    view.on(input, 'change', () => {
      input.value = String(seats);
    });
    card.append(h('label', { class: 'count' }, 'Seats', input));
  }
  const update = () => {
    const interval = view.interval();
    price.show(planPriceText(plan, interval, seats, data, format));
    const notes = [trialText(plan.freemiumDay), !plan.isFree && interval === 'year' ? 'Billed yearly' : ''];
    note.textContent = notes.filter(Boolean).join(' · ');
  };
  view.watch(update);

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
    view.on(button, 'click', () =>
      view.checkout(button, error, {
        shareId: view.shareId,
        planId: plan.id,
        billingInterval: view.interval(),
        ...(plan.isPerUserPricing ? { seats } : {}),
      }),
    );
    card.append(button, error);
  }
  return card;
}
