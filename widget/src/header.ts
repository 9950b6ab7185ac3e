import type { BillingInterval } from '#contract/enums.ts';
import { discountText } from './display.ts';
import { h, uniqueId } from './dom.ts';
import type { ShareData } from './types.ts';
import type { View } from './view.ts';

const textAlign = (value: string) => (value === 'left' || value === 'right' ? value : 'center');

export function header(data: ShareData): HTMLElement | null {
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
