import type { BillingInterval } from '#contract/enums.ts';
import { discountText } from './display.ts';
import { h, uniqueId } from './dom.ts';
import type { ShareData, Theme } from './types.ts';
import type { View } from './view.ts';

const flexAlign = { left: 'flex-start', center: 'center', right: 'flex-end' } as const;
const textAlign = (value: string) => (value === 'left' || value === 'right' ? value : 'center');

/** Theme fields as custom properties on :host, where customCSS, ::part() rules and the host page can use them. */
export const themeProperties: Array<[string, (theme: Theme) => string]> = [
  ['--pricing-font', (t) => t.fontFamily],
  ['--pricing-primary', (t) => t.primaryColor],
  ['--pricing-hover', (t) => t.hoverColor],
  ['--pricing-button-text', (t) => t.buttonTextColor],
  ['--pricing-radius', (t) => t.borderRadius],
  ['--pricing-card-bg', (t) => t.pricingBackgroundColor],
  ['--pricing-card-border', (t) => t.pricingBorderColor],
  ['--pricing-toggle-align', (t) => flexAlign[t.toggleAlign] ?? 'center'],
];

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
  view.on(button, 'click', () => {
    const interval = view.interval() === 'year' ? 'month' : 'year';
    button.setAttribute('aria-checked', String(interval === 'year'));
    announce.textContent = interval === 'year' ? 'Prices shown per year' : 'Prices shown per month';
    choose(interval);
  });
  const monthly = h('span', { 'aria-hidden': 'true' }, 'Monthly');
  const annual = h('span', { id: labelId }, 'Annual billing', save && ' ', save && h('span', { class: 'save' }, save));
  return h(
    'div',
    { class: 'toggle-row' },
    h('div', { class: 'toggle', part: 'toggle' }, monthly, button, annual, announce),
  );
}
