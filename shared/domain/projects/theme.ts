import * as z from 'zod';
import { alignments, badgePositions } from '#contract/enums.ts';
import { limits } from '#contract/limits.ts';
import { sameShape } from '#contract/same-shape.ts';
import type { ThemeSettings } from '#contract/share.ts';
import { singleLineText } from '../fields.ts';
import { lazySchema } from '../validation.ts';

export const Theme = lazySchema(() => {
  const color = z
    .string()
    .regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/, 'must be a hex color: #RGB, #RRGGBB or #RRGGBBAA');
  const cssLength = z
    .string()
    .regex(/^(?:0|\d{1,4}(?:\.\d{1,4})?(?:px|rem|em|%))$/, 'must be a CSS length such as 0, 12px, 0.5rem, 1em or 50%');
  const align = z.enum(alignments, { error: 'must be left, center or right' });

  return z.strictObject({
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
    // null: the widget derives them from pricingBackgroundColor, so text always reaches 4.5:1.
    textColor: color.nullable(),
    mutedTextColor: color.nullable(),
  });
});

export type Theme = z.infer<ReturnType<typeof Theme>>;

// The share view hands the theme to the widget as the contract's ThemeSettings.
sameShape<Theme, ThemeSettings>(true);

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
  textColor: null,
  mutedTextColor: null,
};

/** What a stored theme reads as: a color left out is null, and the fields come in the API's order. */
export function readTheme(stored: StoredTheme): Theme {
  return { ...defaultTheme, ...stored };
}

type StoredTheme = Omit<Theme, 'textColor' | 'mutedTextColor'> & { textColor?: string; mutedTextColor?: string };

/** A theme as the table keeps it: a null color is left out, and reads back as null. */
export function storedTheme({ textColor, mutedTextColor, ...rest }: Theme): StoredTheme {
  return {
    ...rest,
    ...(textColor === null ? {} : { textColor }),
    ...(mutedTextColor === null ? {} : { mutedTextColor }),
  };
}
