import { readFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { etagOf, ifNoneMatchHits } from './etag.ts';
import type { HttpResult } from './responses.ts';

/** A file served as is, read once per process, with its gzip form and one ETag per form. */
export interface StaticAsset {
  text: string;
  gzipped: Buffer;
  etag: string;
  gzipEtag: string;
}

export function loadStaticAsset(file: string): StaticAsset {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`Static asset ${file} cannot be read (${(error as Error).message}); was it built?`);
  }
  return staticAsset(text);
}

/** A text served as is, with its gzip form and one ETag per form. */
export function staticAsset(text: string): StaticAsset {
  const etag = etagOf(text);
  return { text, gzipped: gzipSync(text, { level: 9 }), etag, gzipEtag: `${etag.slice(0, -1)}-gzip"` };
}

/** A text that comes gzipped (built ahead, e.g. the OpenAPI document): served as these bytes and inflated once. */
export function gzippedStaticAsset(gzipped: Buffer): StaticAsset {
  const text = gunzipSync(gzipped).toString('utf8');
  const etag = etagOf(text);
  return { text, gzipped, etag, gzipEtag: `${etag.slice(0, -1)}-gzip"` };
}

/**
 * Whether Accept-Encoding takes gzip (RFC 9110, 12.5.3): gzip (or its alias x-gzip) listed
 * without q=0, or else `*` without q=0 (`*` stands only for codings not listed by name, so
 * `gzip;q=0, *` refuses gzip).
 */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let named: boolean | undefined;
  let any: boolean | undefined;
  for (const entry of header.split(',')) {
    const [name = '', ...params] = entry.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((param) => param.startsWith('q='));
    const accepted = q === undefined || Number(q.slice(2)) > 0;
    if (name === 'gzip' || name === 'x-gzip') named = (named ?? false) || accepted;
    else if (name === '*') any = (any ?? false) || accepted;
  }
  return named ?? any ?? false;
}

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
