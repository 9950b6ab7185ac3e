import { hoverOf, mutedOn, parseHex, type Rgb, readableOr, textOn, toHex, WHITE } from './colors.ts';
import type { Theme } from './types.ts';

const flexAlign = { left: 'flex-start', center: 'center', right: 'flex-end' } as const;
const ERROR_ON_LIGHT: Rgb = [185, 28, 28]; // #B91C1C
const ERROR_ON_DARK: Rgb = [252, 165, 165]; // #FCA5A5
/** The theme's default colours (decisions.md): a stored hoverColor still at its default was never chosen. */
const DEFAULT_PRIMARY = '#4f46e5';
const DEFAULT_HOVER = '#4338ca';

/** The hover colour: the theme's, unless it is the default indigo under another primary colour. */
function hoverColor(theme: Theme, primary: Rgb): string {
  // Share data of another shape (an older service) may lack a field: no exception for it.
  const chosen = `${theme.hoverColor}`.toLowerCase() !== DEFAULT_HOVER;
  const primaryIsDefault = `${theme.primaryColor}`.toLowerCase() === DEFAULT_PRIMARY;
  return chosen || primaryIsDefault ? theme.hoverColor : toHex(hoverOf(primary));
}

type Properties = Array<[string, string]>;

/** Text on the host page (header, toggle, loading and error messages), readable on its background. */
export function pageProperties(page: Rgb): Properties {
  const text = textOn(page);
  return [
    ['--pricing-page-bg', toHex(page)],
    ['--pricing-page-text', toHex(text)],
    ['--pricing-page-muted', toHex(mutedOn(text, page))],
  ];
}

/**
 * Theme fields as custom properties on :host, where customCSS, ::part() rules and the host
 * page can use (and override) them. Null text colours are derived from the card background.
 */
export function themeProperties(theme: Theme, page: Rgb): Properties {
  const card = parseHex(theme.pricingBackgroundColor, page) ?? WHITE;
  const primary = parseHex(theme.primaryColor, card) ?? textOn(card);
  const text = (theme.textColor && parseHex(theme.textColor, card)) || textOn(card);
  const muted = (theme.mutedTextColor && parseHex(theme.mutedTextColor, card)) || mutedOn(text, card);
  const pageText = textOn(page);
  return [
    ['--pricing-font', theme.fontFamily],
    ['--pricing-primary', theme.primaryColor],
    ['--pricing-hover', hoverColor(theme, primary)],
    ['--pricing-button-text', theme.buttonTextColor],
    ['--pricing-radius', theme.borderRadius],
    ['--pricing-card-bg', theme.pricingBackgroundColor],
    ['--pricing-card-border', theme.pricingBorderColor],
    ['--pricing-toggle-align', flexAlign[theme.toggleAlign] ?? 'center'],
    ['--pricing-text', toHex(text)],
    ['--pricing-muted', toHex(muted)],
    // The primary colour as text (check marks, "Save 20%") only where it reads.
    ['--pricing-accent', toHex(readableOr(primary, card, text))],
    ['--pricing-error', toHex(readableOr(ERROR_ON_LIGHT, card, readableOr(ERROR_ON_DARK, card, text)))],
    ...pageProperties(page),
    ['--pricing-page-accent', toHex(readableOr(parseHex(theme.primaryColor, page) ?? pageText, page, pageText))],
  ];
}
