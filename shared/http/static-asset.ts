import { readFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { codedTag, codingWeight } from './compression.ts';
import { etagOf, ifNoneMatchHits } from './etag.ts';
import type { HttpResult } from './responses.ts';

/** A file served as is, read once per process, with its gzip form and one ETag per form. */
export type StaticAsset = ReturnType<typeof staticAsset>;

export function loadStaticAsset(file: string): StaticAsset {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`Static asset ${file} cannot be read (${(error as Error).message}); was it built?`);
  }
  return staticAsset(text, gzipSync(text, { level: 9 }));
}

/** A text that comes gzipped (built ahead, e.g. the OpenAPI document): served as these bytes and inflated once. */
export const gzippedStaticAsset = (gzipped: Buffer) => staticAsset(gunzipSync(gzipped).toString('utf8'), gzipped);

function staticAsset(text: string, gzipped: Buffer) {
  const etag = etagOf(text);
  return { text, gzipped, etag, gzipEtag: codedTag(etag, 'gzip') };
}

/** Whether Accept-Encoding takes gzip: named (or as x-gzip) without q=0, or else `*` without q=0. */
export const acceptsGzip = (header: string | undefined) => codingWeight(header, 'gzip') > 0;

/** 200 with the gzip or plain form, or 304 when the client's copy is current. */
export function serveStaticAsset(
  asset: StaticAsset,
  requestHeaders: Record<string, string | undefined>,
  headers: { 'content-type': string; 'cache-control': string },
): HttpResult {
  const gzip = acceptsGzip(requestHeaders['accept-encoding']);
  const etag = gzip ? asset.gzipEtag : asset.etag;
  const common = { ...headers, etag, vary: 'Accept-Encoding', 'x-content-type-options': 'nosniff' };
  const ifNoneMatch = requestHeaders['if-none-match'];
  if (ifNoneMatchHits(ifNoneMatch, asset.etag) || ifNoneMatchHits(ifNoneMatch, asset.gzipEtag)) {
    return { status: 304, headers: common };
  }
  if (gzip) return { status: 200, raw: asset.gzipped, headers: { ...common, 'content-encoding': 'gzip' } };
  return { status: 200, raw: asset.text, headers: common };
}
