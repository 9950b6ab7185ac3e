import type { BillingInterval } from '#contract/enums.ts';
import { discountText } from './display.ts';
import { h, uniqueId } from './dom.ts';
import type { ShareData } from './types.ts';
import type { View } from './view.ts';

/** `element` aligned as the theme says: left, right, or centred for anything else. */
function aligned(element: HTMLElement, value: string): HTMLElement {
  element.style.textAlign = value === 'left' || value === 'right' ? value : 'center';
  return element;
}

export function header(data: ShareData): HTMLElement | null {
  const theme = data.themeSettings;
  const showName = theme.showProjectName && data.name;
  const showDescription = theme.showPricingHeader && data.pricingPageDescription;
  if (!showName && !showDescription) return null;
  return h(
    'header',
    { class: 'header', part: 'header' },
    showName ? aligned(h('h2', {}, data.name), theme.headerAlign) : null,
    showDescription ? aligned(h('p', {}, data.pricingPageDescription), theme.descriptionAlign) : null,
  );
}

/**
 * A switch (role="switch" on a real button): Tab reaches it, Space and Enter flip it.
 * `choose` makes the flipped interval the shown one.
 */
export function toggle(view: View, choose: (interval: BillingInterval) => void): HTMLElement | null {
  const { data, format } = view;
  const { t } = format;
  if (!data.annualDiscountEnabled) return null;
  const labelId = uniqueId('annual');
  const save = discountText(data, format);
  const button = h('button', {
    type: 'button',
    class: 'switch',
    role: 'switch',
    'aria-checked': String(view.interval() === 'year'),
    'aria-labelledby': labelId,
  });
  const announce = h('span', { class: 'sr-only', 'aria-live': 'polite' });
  const set = (interval: BillingInterval) => {
    if (interval === view.interval()) return;
    button.setAttribute('aria-checked', String(interval === 'year'));
    announce.textContent = t(interval === 'year' ? 'shownYearly' : 'shownMonthly');
    choose(interval);
  };
  view.on(button, 'click', () => set(view.interval() === 'year' ? 'month' : 'year'));
  // The words beside the switch choose their side, as a label would (the switch stays the one control).
  const monthly = h('span', { class: 'choice-label', 'aria-hidden': 'true' }, t('monthly'));
  const annual = h(
    'span',
    { class: 'choice-label', id: labelId },
    t('annual'),
    save && ' ',
    save && h('span', { class: 'save' }, save),
  );
  view.on(monthly, 'click', () => set('month'));
  view.on(annual, 'click', () => set('year'));
  return h(
    'div',
    { class: 'toggle-row' },
    h('div', { class: 'toggle', part: 'toggle' }, monthly, button, annual, announce),
  );
}
