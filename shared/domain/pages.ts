import * as z from 'zod';
import { ValidationError } from './errors.ts';

/**
 * Pages, as decisions.md says for every paged list: `limit` (1–100) asks for a page, and
 * `nextCursor` (null on the last page) is passed back as `?cursor=` for the next one. A
 * cursor alone pages with the default size. Cursors are opaque to callers: base64url of a
 * small JSON object that names the last item of the page, checked on the way in, so a
 * forged or truncated cursor is a 400, never a 500 or a read of someone else's keys (every
 * page Query is bounded to the caller's own partition whatever the cursor holds).
 */
export const PAGE_SIZE_DEFAULT = 50;
export const PAGE_SIZE_MAX = 100;
const CURSOR_MAX = 200;

export const PageQuery = z.object({
  limit: z
    .string()
    .regex(/^[1-9][0-9]{0,2}$/, `must be a whole number from 1 to ${PAGE_SIZE_MAX}`)
    .transform(Number)
    .refine((value) => value <= PAGE_SIZE_MAX, `must be a whole number from 1 to ${PAGE_SIZE_MAX}`)
    .optional(),
  cursor: z.string().min(1, 'must not be empty').max(CURSOR_MAX, 'is not a cursor this API gave').optional(),
});
export type PageQuery = z.output<typeof PageQuery>;

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * A cursor codec: `after` (the last item of a page, checked with `after`'s schema on the way
 * in) as base64url JSON. Every paged list uses one, so a forged cursor gets one answer.
 */
export function cursorCodec<T>(after: z.ZodType<T>) {
  const Body = z.strictObject({ after });
  return {
    encode: (value: T): string => Buffer.from(JSON.stringify({ after: value })).toString('base64url'),
    /** What the page starts after: undefined for the first page. */
    decode(cursor: string | undefined): T | undefined {
      if (cursor === undefined) return undefined;
      try {
        const parsed = Body.safeParse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
        if (parsed.success) return parsed.data.after;
      } catch {
        // Not base64url JSON: answered below like any other cursor this API did not give.
      }
      throw new ValidationError('Invalid query string: cursor is not a cursor this API gave.', [
        { path: 'cursor', message: 'is not a cursor this API gave' },
      ]);
    },
  };
}

const idCursor = cursorCodec(z.number().int().positive().max(Number.MAX_SAFE_INTEGER));
export const encodeCursor = idCursor.encode;

/** The id after which a page starts: 0 for the first page. */
export const decodeCursor = (cursor: string | undefined): number => idCursor.decode(cursor) ?? 0;

/**
 * Fills one page from id-ordered reads: `read(afterId, count)` returns up to `count` items
 * with ids above `afterId` and whether more follow. Items `keep` refuses (a project being
 * deleted) are skipped, and the read goes on until the page is full or nothing is left, so
 * `nextCursor` is null exactly on the last page. One read per page unless items are skipped.
 */
export async function fillPage<T>(
  query: PageQuery,
  idOf: (item: T) => number,
  read: (afterId: number, count: number) => Promise<{ items: T[]; more: boolean }>,
  keep: (item: T) => boolean = () => true,
): Promise<Page<T>> {
  const size = query.limit ?? PAGE_SIZE_DEFAULT;
  const collected: T[] = [];
  let after = decodeCursor(query.cursor);
  // One more than the page, to know whether a next page exists.
  while (collected.length <= size) {
    const { items, more } = await read(after, size + 1 - collected.length);
    collected.push(...items.filter(keep));
    const last = items.at(-1);
    if (!more || last === undefined) break;
    after = idOf(last);
  }
  const items = collected.slice(0, size);
  const last = items.at(-1);
  return { items, nextCursor: collected.length > size && last ? encodeCursor(idOf(last)) : null };
}
