/**
 * The widget's words in English, German, French, Spanish, Portuguese and Japanese. Numbers and
 * currencies come from Intl in the same locale; words come from here, `{…}` filled in by `t`.
 * All six ship in widget.js: one request, no flash of English.
 */

import { translations } from './messages.ts';
import { en, type MessageKey, type Messages } from './messages-en.ts';

export type { MessageKey } from './messages-en.ts';

const catalogs: Record<string, Messages> = { en, ...translations };

export type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;

/** The catalog of a BCP 47 tag's language ("pt-BR" → pt), English for any other. */
export function translator(locale: string | undefined): Translate {
  const language = (locale ?? '').toLowerCase().split(/[-_]/)[0] ?? '';
  const catalog = catalogs[language] ?? en;
  return (key, values = {}) => catalog[key].replace(/\{(\w+)\}/g, (_, name: string) => String(values[name] ?? ''));
}

export const supportedLanguages = Object.keys(catalogs);
