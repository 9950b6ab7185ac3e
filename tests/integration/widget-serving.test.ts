import { gunzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { buildWidget, WIDGET_GZIP_BUDGET, widgetSize } from '../../widget/build.ts';
import { useLocalServer } from '../fixtures/api.ts';

const server = useLocalServer();

/** Raw bytes, as a browser receives them before decoding: fetch would gunzip for us. */
async function get(path: string, headers: Record<string, string> = {}) {
  const { request } = await import('node:http');
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (resolve, reject) => {
      const req = request(`${server.url}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      });
      req.on('error', reject);
      req.end();
    },
  );
}

describe('GET /widget.js', () => {
  test('is the built widget, as JavaScript, cacheable for a day with an ETag, readable from any origin', async () => {
    const response = await get('/widget.js');
    expect(response.status).toBe(200);
    expect(response.body.toString('utf8')).toBe(await buildWidget());
    expect(response.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(response.headers['cache-control']).toBe('public, max-age=86400, stale-while-revalidate=604800');
    expect(response.headers.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(response.headers.vary).toBe('Accept-Encoding');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.headers['x-request-id']).toBeTruthy();
    expect(response.headers['content-encoding']).toBeUndefined();
  });

  test('is gzipped for a client that accepts it, under its own ETag, and not for one that refuses it', async () => {
    const plain = await get('/widget.js');
    const gzipped = await get('/widget.js', { 'accept-encoding': 'br, gzip, deflate' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzipped.body).equals(plain.body)).toBe(true);
    expect(gzipped.headers.etag).not.toBe(plain.headers.etag);
    expect(gzipped.body.byteLength).toBeLessThan(WIDGET_GZIP_BUDGET);
    const refused = await get('/widget.js', { 'accept-encoding': 'gzip;q=0, identity' });
    expect(refused.headers['content-encoding']).toBeUndefined();
  });

  test('answers 304 with no body when the ETag of either form matches', async () => {
    const plain = await get('/widget.js');
    const gzipped = await get('/widget.js', { 'accept-encoding': 'gzip' });
    for (const etag of [plain.headers.etag, gzipped.headers.etag, `W/${plain.headers.etag}`]) {
      const again = await get('/widget.js', { 'if-none-match': String(etag), 'accept-encoding': 'gzip' });
      expect(again.status).toBe(304);
      expect(again.body.byteLength).toBe(0);
      expect(again.headers['cache-control']).toBe('public, max-age=86400, stale-while-revalidate=604800');
    }
    expect((await get('/widget.js', { 'if-none-match': '"stale"' })).status).toBe(200);
  });

  test('stays under 15 KB gzipped (npm run bench prints the size)', async () => {
    const size = await widgetSize();
    expect(size.gzip).toBeLessThan(WIDGET_GZIP_BUDGET);
    expect(size.raw).toBeGreaterThan(size.gzip);
  });

  test('answers other methods with 405 and an Allow header', async () => {
    const response = await fetch(`${server.url}/widget.js`, { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('method_not_allowed');
  });
});

describe('GET /demo/{shareId}', () => {
  const shareId = 'abcdefghijklmnop1234';

  test('is a plain host page that embeds the widget with the two README lines, under a strict policy', async () => {
    const response = await fetch(`${server.url}/demo/${shareId}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    expect(html).toContain(`<div data-pricing-id="${shareId}"></div>`);
    expect(html).toContain('<script src="../widget.js" async></script>');
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("frame-ancestors 'none'");
  });

  test('back from checkout, links to the receipt of a well-formed session id, and ignores any other', async () => {
    const back = await (await fetch(`${server.url}/demo/${shareId}?checkout=success&session_id=cs_test_abc123`)).text();
    expect(back).toContain(`<a href="../api/payments/receipt?session_id=cs_test_abc123&amp;shareId=${shareId}">`);
    const hostile = await (
      await fetch(`${server.url}/demo/${shareId}?session_id=${encodeURIComponent('cs_"><script>x</script>')}`)
    ).text();
    expect(hostile).not.toContain('receipt');
    expect(hostile).not.toContain('<script>x');
  });

  test('is cacheable publicly for 5 min, but never back from a checkout (its address names a session)', async () => {
    const plain = await fetch(`${server.url}/demo/${shareId}`);
    expect(plain.headers.get('cache-control')).toBe('public, max-age=300');
    for (const query of ['?checkout=success&session_id=cs_test_abc123', '?session_id=not-a-session', '?session_id=']) {
      const back = await fetch(`${server.url}/demo/${shareId}${query}`);
      expect(back.status, query).toBe(200);
      expect(back.headers.get('cache-control'), query).toBe('no-store');
      expect(back.headers.get('x-content-type-options'), query).toBe('nosniff');
    }
  });

  test.each([
    ['too short', 'short'],
    ['markup', '%3Cscript%3Ealert(1)%3C%2Fscript%3Eaaaaaaaaaaaaaaa'],
    ['a quote', 'aaaaaaaaaaaaaaaaaaaa%22onload%3D'],
  ])('is a JSON 404 for a share id that is %s', async (_label, id) => {
    const response = await fetch(`${server.url}/demo/${id}`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });
});
