import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { GroupMiddleware, GroupRequest } from './request-middlewares.ts';
import type { LambdaResult } from './responses.ts';

/**
 * Content coding of every answer (RFC 9110 8.4, 12.5.3): a body over `COMPRESS_OVER_BYTES`
 * goes out in br or gzip when the request accepts one, as Lambda sends bytes (base64 with
 * `isBase64Encoded`). The threshold and levels, and the CPU they cost, are in
 * docs/decisions.md ("Compressed answers").
 */
export const COMPRESS_OVER_BYTES = 1024;
export const GZIP_LEVEL = 6;
export const BROTLI_QUALITY = 5;

export type Coding = 'br' | 'gzip';

/**
 * How much Accept-Encoding wants `coding` (q, 0 when refused): its highest q where named, else
 * that of `*`, which stands only for codings not named (RFC 9110 12.5.3); `x-gzip` is gzip.
 */
export function codingWeight(acceptEncoding: string | undefined, coding: Coding): number {
  const named: Partial<Record<Coding | '*', number>> = {};
  for (const entry of acceptEncoding?.split(',') ?? []) {
    const [rawName = '', ...params] = entry.split(';').map((part) => part.trim().toLowerCase());
    const name = rawName === 'x-gzip' ? 'gzip' : rawName;
    if (name !== 'br' && name !== 'gzip' && name !== '*') continue;
    const q = params.find((param) => param.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    named[name] = Math.max(named[name] ?? 0, Number.isFinite(weight) ? weight : 0);
  }
  return named[coding] ?? named['*'] ?? 0;
}

/**
 * The coding to answer with: the accepted one (q > 0) with the higher q, br on a tie (its
 * answers are smaller, and its window spans a whole answer).
 */
export function negotiate(acceptEncoding: string | undefined): Coding | undefined {
  const br = codingWeight(acceptEncoding, 'br');
  const gzip = codingWeight(acceptEncoding, 'gzip');
  if (br <= 0 && gzip <= 0) return undefined;
  return br >= gzip ? 'br' : 'gzip';
}

/**
 * A coded body is under this or is not sent: the answer goes out as identity instead. gzip's
 * 32 KB window misses the repeats a share answer spreads a plan's feature list apart, so at
 * the limits with texts that compress badly its body would be megabytes (docs/decisions.md,
 * "Compressed answers").
 */
export const CODED_BYTES_MAX = 1_000_000;

/** zlib's error when the output would pass `maxOutputLength`. */
const isTooLarge = (error: unknown) =>
  error instanceof RangeError && (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';

/**
 * The body in `coding`, or undefined when that would reach `CODED_BYTES_MAX` bytes: zlib stops
 * as soon as its output passes the cap, so an answer that will not be coded costs only part
 * of a coding.
 */
export function compress(body: Buffer, coding: Coding): Buffer | undefined {
  const maxOutputLength = CODED_BYTES_MAX - 1;
  try {
    if (coding === 'gzip') return gzipSync(body, { level: GZIP_LEVEL, maxOutputLength });
    return brotliCompressSync(body, {
      maxOutputLength,
      params: {
        [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    });
  } catch (error) {
    if (isTooLarge(error)) return undefined;
    throw error;
  }
}

/**
 * Each coding has its own strong ETag (RFC 9110 8.8.3: the bytes differ): `"tag"` becomes
 * `"tag-br"` or `"tag-gzip"` (as the static assets already tag their gzip form).
 */
const CODED_TAG = /^(W\/)?"(.*)-(br|gzip)"$/;

export const codedTag = (etag: string, coding: Coding) => etag.replace(/"$/, `-${coding}"`);

/** A tag as the actions compute it: the same for every coding. */
const uncoded = (tag: string) => tag.replace(CODED_TAG, '$1"$2"');

/** An If-Match or If-None-Match list with each tag's coding suffix removed. */
const uncodedList = (header: string) =>
  header
    .split(',')
    .map((tag) => uncoded(tag.trim()))
    .join(', ');

const headerValue = (headers: LambdaResult['headers'], name: string) => {
  const value = headers[name];
  return value === undefined ? undefined : String(value);
};

/**
 * The ETag of a 304: the one its 200 would carry (`wouldSend`: coded when that body is over
 * the threshold and a coding is accepted) when the client names it (or names any tag, `*`);
 * else the tag of the copy the client holds, of another coding (RFC 9111 4.3.4: a cache
 * updates the stored answer the 304's tag names).
 */
function notModifiedTag(sent: string, etag: string, wouldSend: string): string {
  const matching = sent
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .filter((tag) => uncoded(tag) === etag);
  return matching.includes(wouldSend) ? wouldSend : (matching[0] ?? wouldSend);
}

/**
 * The content-coding step of the pipeline. Before the action, it reads the request's
 * Accept-Encoding, and strips the coding suffixes from If-Match and If-None-Match, so every
 * action compares the tags it computes (a tag of either coding names the same
 * representation: 304 to either, If-Match with either). After it (errors too), it codes a
 * body over the threshold (unless coded it would reach `CODED_BYTES_MAX`), tags it, answers a 304 with the tag of the client's copy, and
 * says `Vary: Accept-Encoding` on every answer with a body or a 304. Answers that come coded
 * (the static assets) are left as they are.
 */
export function contentCoding(): GroupMiddleware {
  return {
    before: async ({ event, context }) => {
      const headers = event.headers ?? {};
      context.coding = negotiate(headers['accept-encoding']);
      const ifNoneMatch = headers['if-none-match'];
      if (ifNoneMatch !== undefined) {
        context.ifNoneMatchSent = ifNoneMatch;
        headers['if-none-match'] = uncodedList(ifNoneMatch);
      }
      if (headers['if-match'] !== undefined) headers['if-match'] = uncodedList(headers['if-match']);
    },
    after: code,
    onError: code,
  };
}

function addVary(headers: LambdaResult['headers']): void {
  const vary = headerValue(headers, 'vary');
  if (!vary) headers.vary = 'Accept-Encoding';
  else if (!/(^|,)\s*accept-encoding\s*(,|$)/i.test(vary)) headers.vary = `${vary}, Accept-Encoding`;
}

async function code({ context, response }: GroupRequest): Promise<void> {
  const answer = response as LambdaResult | undefined;
  if (answer === undefined) return;
  const { headers } = answer;
  const etag = headerValue(headers, 'etag');
  if (answer.statusCode === 304) {
    addVary(headers);
    if (etag && !CODED_TAG.test(etag)) {
      const coded = context.coding && (context.outcome?.representationBytes ?? 0) > COMPRESS_OVER_BYTES;
      const wouldSend = coded && context.coding ? codedTag(etag, context.coding) : etag;
      headers.etag = notModifiedTag(context.ifNoneMatchSent ?? '', etag, wouldSend);
    }
    return;
  }
  if (answer.body === undefined) return;
  addVary(headers);
  if (!context.coding || headerValue(headers, 'content-encoding')) return;
  const bytes = Buffer.from(answer.body, answer.isBase64Encoded ? 'base64' : 'utf8');
  if (bytes.length <= COMPRESS_OVER_BYTES) return;
  const coded = compress(bytes, context.coding);
  if (coded === undefined) return;
  answer.body = coded.toString('base64');
  answer.isBase64Encoded = true;
  headers['content-encoding'] = context.coding;
  if (etag) headers.etag = codedTag(etag, context.coding);
}
