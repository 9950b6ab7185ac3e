import * as z from 'zod';
import { ValidationError } from './errors.ts';
import { lazySchema } from './validation.ts';

/**
 * Every paged list pages one way: `limit` (1–100) asks for a page, and `nextCursor` (null on
 * the last page) is passed back as `?cursor=` for the next one. A cursor alone pages with the
 * default size. Cursors are opaque to callers: base64url of a small JSON object that names
 * the last item of the page, checked on the way in, so a forged or truncated cursor is a
 * 400, never a 500 or a read of someone else's keys (every page Query is bounded to the
 * caller's own partition whatever the cursor holds).
 */
const PAGE_SIZE_DEFAULT = 50;
const PAGE_SIZE_MAX = 100;
const CURSOR_MAX = 200;

export const PageQuery = lazySchema(() =>
  z.object({
    limit: z
      .string()
      .regex(/^[1-9][0-9]{0,2}$/, `must be a whole number from 1 to ${PAGE_SIZE_MAX}`)
      .transform(Number)
      .refine((value) => value <= PAGE_SIZE_MAX, `must be a whole number from 1 to ${PAGE_SIZE_MAX}`)
      .optional(),
    cursor: z.string().min(1, 'must not be empty').max(CURSOR_MAX, 'is not a cursor this API gave').optional(),
  }),
);
export type PageQuery = z.output<ReturnType<typeof PageQuery>>;

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Where a page starts: its size, and the key of the item it follows (undefined: the first page). */
export interface PageStart<K> {
  size: number;
  after: K | undefined;
}

/** The cursor of a page that follows the item whose key is `after`. */
export const encodeCursor = (after: unknown): string => Buffer.from(JSON.stringify({ after })).toString('base64url');

/**
 * A paged list: its items in one order, each named by a key (`keyOf`, checked with `key` on
 * the way in). Its cursor is the key of a page's last item; `read(after, count)` returns up
 * to `count` items that follow `after` in the list's order (from the first when undefined)
 * and whether more follow.
 */
export function pagedList<T, K>(key: () => z.ZodType<K>, keyOf: (item: T) => K) {
  const Cursor = lazySchema(() => z.strictObject({ after: key() }));
  return {
    /** The page a query asks for; a cursor this API did not give is a 400, before any read. */
    start(query: PageQuery): PageStart<K> {
      return { size: query.limit ?? PAGE_SIZE_DEFAULT, after: decode(Cursor(), query.cursor) };
    },

    /**
     * Fills the page. Items `keep` refuses (an expired entry) are
     * skipped, and the read goes on until the page is full or nothing is left, so
     * `nextCursor` is null exactly on the last page. One read per page unless items are skipped.
     */
    async fill(
      { size, after }: PageStart<K>,
      read: (after: K | undefined, count: number) => Promise<{ items: T[]; more: boolean }>,
      keep: (item: T) => boolean = () => true,
    ): Promise<Page<T>> {
      const collected: T[] = [];
      let next = after;
      // One more than the page, to know whether a next page exists.
      while (collected.length <= size) {
        const { items, more } = await read(next, size + 1 - collected.length);
        collected.push(...items.filter(keep));
        const last = items.at(-1);
        if (!more || last === undefined) break;
        next = keyOf(last);
      }
      const items = collected.slice(0, size);
      const last = items.at(-1);
      return { items, nextCursor: collected.length > size && last ? encodeCursor(keyOf(last)) : null };
    },
  };
}

function decode<K>(Cursor: z.ZodType<{ after: K }>, cursor: string | undefined): K | undefined {
  if (cursor === undefined) return undefined;
  try {
    const parsed = Cursor.safeParse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    if (parsed.success) return parsed.data.after;
  } catch {
    // Not base64url JSON: answered below like any other cursor this API did not give.
  }
  throw new ValidationError('Invalid query string: cursor is not a cursor this API gave.', [
    { path: 'cursor', message: 'is not a cursor this API gave' },
  ]);
}

/** The key of a list ordered by id. */
export const idKey = lazySchema(() => z.number().int().positive().max(Number.MAX_SAFE_INTEGER));
