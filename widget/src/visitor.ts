/**
 * The visitor's id for pricing experiments (lifecycle.md §5): random, made once per browser and
 * kept in localStorage, so a visitor sees the same variant on every visit and pays its price at
 * checkout. It names no one: 22 random characters of `A-Z a-z 0-9 _ -`. Where storage is
 * refused (private modes, blocked third-party storage) it lasts as long as the page.
 */
const STORAGE_KEY = 'pricing-table:visitor';
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';
const SHAPE = /^[A-Za-z0-9_-]{1,64}$/;

let pageOnly: string | undefined;

function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(22));
  return Array.from(bytes, (byte) => ALPHABET[byte & 63]).join('');
}

export function visitorId(): string {
  try {
    const kept = localStorage.getItem(STORAGE_KEY);
    if (kept && SHAPE.test(kept)) return kept;
    const made = newId();
    localStorage.setItem(STORAGE_KEY, made);
    return made;
  } catch {
    pageOnly ??= newId();
    return pageOnly;
  }
}
