import * as z from 'zod';
import { alignments, badgePositions } from '#contract/enums.ts';
import { limits } from '#contract/limits.ts';
import { sameShape } from '#contract/same-shape.ts';
import type { ThemeSettings } from '#contract/share.ts';
import { singleLineText } from '../fields.ts';

const color = z
  .string()
  .regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/, 'must be a hex color: #RGB, #RRGGBB or #RRGGBBAA');
const cssLength = z
  .string()
  .regex(/^(?:0|\d{1,4}(?:\.\d{1,4})?(?:px|rem|em|%))$/, 'must be a CSS length such as 0, 12px, 0.5rem, 1em or 50%');
const align = z.enum(alignments, { error: 'must be left, center or right' });

export const Theme = z.strictObject({
  // A single-line text that lands inside a CSS declaration in the widget, so nothing that could end one.
  fontFamily: singleLineText(limits.fontFamilyMax).regex(
    /^[^;{}<>\\]*$/,
    'must be a font list without ; { } < > or \\',
  ),
  primaryColor: color,
  hoverColor: color,
  buttonTextColor: color,
  borderRadius: cssLength,
  pricingBackgroundColor: color,
  pricingBorderColor: color,
  customCSS: z.string().max(limits.customCssMax, `must be at most ${limits.customCssMax} characters`),
  showProjectName: z.boolean(),
  showPricingHeader: z.boolean(),
  headerAlign: align,
  descriptionAlign: align,
  toggleAlign: align,
  popularBadgePosition: z.enum(badgePositions, { error: 'must be top or inline' }),
});

export type Theme = z.infer<typeof Theme>;

// The share view hands the theme to the widget as the contract's ThemeSettings.
sameShape<Theme, ThemeSettings>(true);

/** `theme` in a request is partial and merges into what is stored. Unknown keys are ignored. */
export const ThemePatch = z.object(Theme.shape).partial();

export const defaultTheme: Theme = {
  fontFamily: 'Inter, system-ui, sans-serif',
  primaryColor: '#4F46E5',
  hoverColor: '#4338CA',
  buttonTextColor: '#FFFFFF',
  borderRadius: '12px',
  pricingBackgroundColor: '#FFFFFF',
  pricingBorderColor: '#E5E7EB',
  customCSS: '',
  showProjectName: true,
  showPricingHeader: true,
  headerAlign: 'center',
  descriptionAlign: 'center',
  toggleAlign: 'center',
  popularBadgePosition: 'top',
};

/** What a stored theme reads as: defaults fill any field added after it was written. */
export function readTheme(stored: Partial<Theme> | undefined): Theme {
  return { ...defaultTheme, ...stored };
}
