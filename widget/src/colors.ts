/**
 * WCAG contrast, so text derived from a background always reads (≥ 4.5:1): the theme's
 * null `textColor`/`mutedTextColor` on the cards, and the header and toggle on whatever
 * the host page paints behind the widget.
 */
export type Rgb = [number, number, number];

const DARK: Rgb = [17, 24, 39]; // #111827
const LIGHT: Rgb = [249, 250, 251]; // #F9FAFB
export const WHITE: Rgb = [255, 255, 255];
const BLACK: Rgb = [0, 0, 0];
const AA = 4.5;

/** `#RGB`, `#RRGGBB` or `#RRGGBBAA` (the theme's forms), its alpha laid over `under`. */
export function parseHex(hex: string, under: Rgb = WHITE): Rgb | undefined {
  let digits = hex.replace(/^#/, '');
  if (digits.length === 3) digits = digits.replace(/./g, '$&$&');
  if (!/^(?:[0-9a-f]{6}|[0-9a-f]{8})$/i.test(digits)) return undefined;
  const n = (i: number) => Number.parseInt(digits.slice(i, i + 2), 16);
  const alpha = digits.length === 8 ? n(6) / 255 : 1;
  return mix(under, [n(0), n(2), n(4)], alpha);
}

/** A computed `rgb(…)`/`rgba(…)` value, with its alpha (0 for `transparent`). */
export function parseComputed(value: string): { rgb: Rgb; alpha: number } | undefined {
  const match = /rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:[,\s/]+([\d.]+))?/.exec(value);
  if (!match) return undefined;
  return { rgb: [Number(match[1]), Number(match[2]), Number(match[3])], alpha: match[4] ? Number(match[4]) : 1 };
}

/** `a` moved towards `b` by `t` (0: a, 1: b). */
export const mix = (a: Rgb, b: Rgb, t: number): Rgb => a.map((v, i) => Math.round(v + ((b[i] ?? 0) - v) * t)) as Rgb;

const linear = (v: number) => {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};
const luminance = ([r, g, b]: Rgb) => 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);

export function contrast(a: Rgb, b: Rgb): number {
  const [x, y] = [luminance(a), luminance(b)].sort((m, n) => n - m) as [number, number];
  return (x + 0.05) / (y + 0.05);
}

export const toHex = (rgb: Rgb) => `#${rgb.map((v) => v.toString(16).padStart(2, '0')).join('')}`;

/**
 * Near-black on light backgrounds, near-white on dark ones, whichever reads better; pure black
 * or white when neither reaches 4.5:1 (mid greys): one of them always does (at least 4.58:1).
 */
export function textOn(background: Rgb): Rgb {
  const dark = contrast(DARK, background) >= contrast(LIGHT, background);
  const text = dark ? DARK : LIGHT;
  if (contrast(text, background) >= AA) return text;
  return dark ? [0, 0, 0] : WHITE;
}

/** The text colour faded towards the background as far as it still reads at 4.5:1. */
export function mutedOn(text: Rgb, background: Rgb): Rgb {
  for (let t = 0.5; t > 0; t -= 0.05) {
    const candidate = mix(text, background, t);
    if (contrast(candidate, background) >= AA + 0.1) return candidate;
  }
  return text;
}

/** `color` where it reads on `background`, else `fallback` (a brand colour used as text). */
export const readableOr = (color: Rgb, background: Rgb, fallback: Rgb): Rgb =>
  contrast(color, background) >= AA ? color : fallback;

/**
 * A button's hover shade of `primary`: 15% darker, as the default pair is (#4F46E5 over
 * #4338CA), or lighter where darker would not show (a near-black primary).
 */
export const hoverOf = (primary: Rgb): Rgb =>
  contrast(primary, BLACK) < 1.5 ? mix(primary, WHITE, 0.2) : mix(primary, BLACK, 0.15);
