/**
 * The coded-size cap of the content-coding step (shared/http/compression.ts): a coded body is
 * under CODED_BYTES_MAX or the answer goes out as identity, with the identity tag and still
 * `Vary: Accept-Encoding`. Exercised on a share-shaped answer at the limits whose texts are
 * random 4-byte characters (as incompressible as text gets): br spans a plan's repeats of
 * every feature and stays under the cap, gzip's 32 KB window does not.
 */

import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, test } from 'vitest';
import { limits } from '#contract/limits.ts';
import { CODED_BYTES_MAX, COMPRESS_OVER_BYTES, compress, contentCoding } from '#http/compression.ts';
import type { GroupRequest } from '#http/request-middlewares.ts';
import type { LambdaResult } from '#http/responses.ts';

/** A text of `length` random astral code points (4 bytes each in UTF-8), from a seeded generator. */
function astral(length: number, random: () => number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += String.fromCodePoint(0x20000 + Math.floor(random() * 0xa000));
  return out;
}

function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state / 2 ** 32;
  };
}

/** The share answer's shape at the limits: every plan lists every feature by its (capped) name. */
function shareAtLimits(): string {
  const random = seeded(31);
  const features = Array.from({ length: limits.featuresPerProject }, (_, id) => ({
    id,
    name: astral(limits.nameMax, random),
    featureType: 'boolean',
  }));
  const plans = Array.from({ length: limits.plansPerProject }, (_, id) => ({
    id,
    name: astral(limits.nameMax, random),
    features: features.map(({ id: featureId, name }) => ({ featureId, name, included: true })),
  }));
  return JSON.stringify({ name: astral(limits.nameMax, random), plans, features });
}

const text = shareAtLimits();

async function answer(acceptEncoding: string): Promise<LambdaResult> {
  const step = contentCoding();
  const event = { headers: { 'accept-encoding': acceptEncoding } } as unknown as APIGatewayProxyEventV2;
  const response: LambdaResult = {
    statusCode: 200,
    headers: { 'content-type': 'application/json', etag: '"t"' },
    body: text,
    isBase64Encoded: false,
  };
  const request = { event, context: {}, response } as unknown as GroupRequest;
  await (step.before as (r: GroupRequest) => Promise<void>)(request);
  await (step.after as (r: GroupRequest) => Promise<void>)(request);
  return response;
}

describe('a coded answer stays under CODED_BYTES_MAX, or goes out as identity', () => {
  test('the answer is megabytes, far over the threshold', () => {
    expect(Buffer.byteLength(text)).toBeGreaterThan(2_000_000);
    expect(COMPRESS_OVER_BYTES).toBeLessThan(CODED_BYTES_MAX);
  });

  test('br: coded, under the cap, and decodes to the answer', async () => {
    const result = await answer('br');
    expect(result.headers['content-encoding']).toBe('br');
    expect(result.headers.etag).toBe('"t-br"');
    const wire = Buffer.from(String(result.body), 'base64');
    expect(wire.length).toBeLessThan(CODED_BYTES_MAX);
    expect(brotliDecompressSync(wire).toString('utf8')).toBe(text);
  });

  test('gzip alone accepted: gzip would be over the cap, so identity, with the identity tag and Vary', async () => {
    expect(compress(Buffer.from(text), 'gzip')).toBeUndefined();
    const result = await answer('gzip');
    expect(result.headers['content-encoding']).toBeUndefined();
    expect(result.headers.etag).toBe('"t"');
    expect(result.headers.vary).toBe('Accept-Encoding');
    expect(result.isBase64Encoded).toBe(false);
    expect(result.body).toBe(text);
  });

  test('both accepted: br, as on a tie', async () => {
    const result = await answer('gzip, deflate, br');
    expect(result.headers['content-encoding']).toBe('br');
  });

  test('a body that codes under the cap in gzip is coded', () => {
    const body = Buffer.from(JSON.stringify({ plans: Array.from({ length: 5_000 }, (_, id) => ({ id, name: 'x' })) }));
    const coded = compress(body, 'gzip');
    expect(coded).toBeDefined();
    expect(gunzipSync(coded as Buffer).equals(body)).toBe(true);
  });
});
