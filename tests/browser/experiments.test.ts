import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { type BrowserPage, describeInBrowser, useBrowser } from '../fixtures/browser.ts';
import { makePlan, makeProject } from '../fixtures/factories.ts';

// The fake Stripe must exist before the handlers read STRIPE_API_BASE at load.
const { fake } = await vi.hoisted(async () => {
  const { startFakeStripe } = await import('#dev/fake-stripe/index.ts');
  const started = await startFakeStripe();
  process.env.STRIPE_API_BASE = started.url;
  process.env.STRIPE_TIMEOUT_MS = '2000';
  return { fake: started };
});

const server = useLocalServer();
const browser = useBrowser();

let api: ApiClient;
let host: Server;
let hostUrl = '';
let hostPage = '';
let shareId = '';
let slug = '';
let experimentId = 0;
/** A second project's page, with no experiment. */
let plainUrl = '';
let plainShareId = '';

beforeAll(async () => {
  const owner = await newOwner('experiment-widget');
  api = server.client(owner.writeKey);
  const project = await makeProject(api, {
    name: 'Priced twice',
    paymentSecretKey: `sk_test_${'e'.repeat(24)}`,
    checkoutTestSuccessUrl: 'https://acme.example/thanks',
    checkoutTestCancelUrl: 'https://acme.example/pricing',
  });
  ({ shareId, slug } = project);
  const pro = await makePlan(api, slug, { name: 'Pro', basePrice: 29 });
  const created = await api.post(`/api/v1/projects/${slug}/experiments`, {
    name: 'Pro at 39',
    variants: [
      { key: 'a', weight: 1 },
      { key: 'b', weight: 1, plans: [{ planId: pro.id, basePrice: 39 }] },
    ],
  });
  expect(created.status, created.text).toBe(201);
  experimentId = created.body.id;
  expect((await api.post(`/api/v1/projects/${slug}/experiments/${experimentId}/start`)).status).toBe(200);
  const plain = await makeProject(api, { name: 'Priced once' });
  plainShareId = plain.shareId;
  await makePlan(api, plain.slug, { name: 'Pro', basePrice: 29 });
  const pageFor = (id: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"></head><body>
    <pricing-table share-id="${id}"></pricing-table>
    <script src="${server.url}/widget.js" async></script></body></html>`;
  hostPage = pageFor(shareId);
  const plainPage = pageFor(plainShareId);
  host = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(req.url === '/plain' ? plainPage : hostPage);
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  hostUrl = `http://localhost:${(host.address() as AddressInfo).port}/`;
  plainUrl = `${hostUrl}plain`;
});

afterAll(async () => {
  if (host) await new Promise((resolve) => host.close(resolve));
  await fake.close();
});

/** Pro's monthly amount as the widget shows it, once the cards are there. */
async function proPrice(page: Page): Promise<string> {
  const card = page.locator('pricing-table article.card').filter({ has: page.locator('h3', { hasText: /^Pro/ }) });
  await card.waitFor({ timeout: 10_000 });
  return (await card.locator('.price .amount').textContent()) ?? '';
}

const storedVisitor = (page: Page) => page.evaluate(() => localStorage.getItem('pricing-table:visitor'));

/** The query strings of the page's share reads of `id`, in the order the page sent them. */
function shareReads(page: Page, id: string): string[] {
  const reads: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (request.method() === 'GET' && url.pathname === `/api/share/${id}`) reads.push(url.search);
  });
  return reads;
}

/** The page's POSTs of views for `id`. */
function viewPosts(page: Page, id: string): string[] {
  const posts: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === `/api/share/${id}/views`) {
      posts.push(request.url());
    }
  });
  return posts;
}

describeInBrowser('a pricing experiment in Chromium', () => {
  test('two browsers get different variants, keep them across reloads, are counted once each, and pay their price', async () => {
    // Fresh contexts (fresh storage) until one shows each price: each makes its own random id.
    const seen = new Map<string, BrowserPage>();
    let opened = 0;
    while (seen.size < 2 && opened < 16) {
      const tab = await browser.open();
      opened++;
      const reads = shareReads(tab.page, shareId);
      await tab.page.goto(hostUrl);
      const price = await proPrice(tab.page);
      // The shared read first (the CDN's copy, its header naming the experiment), then the visitor's own.
      expect(reads).toEqual(['', `?visitor=${await storedVisitor(tab.page)}`]);
      if (!seen.has(price)) seen.set(price, tab);
    }
    expect([...seen.keys()].sort()).toEqual(['$29', '$39']);

    for (const [price, { page }] of seen) {
      const id = await storedVisitor(page);
      expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      for (let reload = 0; reload < 2; reload++) {
        await page.reload();
        expect(await proPrice(page)).toBe(price);
        expect(await storedVisitor(page)).toBe(id);
      }
    }

    // Every context viewed once or more; each is one visitor.
    await expect
      .poll(async () => {
        const results = await api.get(`/api/v1/projects/${slug}/experiments/${experimentId}/results`);
        return results.body.variants.reduce((sum: number, v: { visitors: number }) => sum + v.visitors, 0);
      })
      .toBe(opened);

    // Checkout from the 39 browser: the fake Stripe is asked for 39.00.
    const { page, errors } = seen.get('$39') as BrowserPage;
    const button = page.locator('pricing-table article.card').filter({ hasText: 'Pro' }).locator('[part=button]');
    await Promise.all([page.waitForURL(`${fake.url}/pay/**`), button.click()]);
    const created = fake.lastSessionCreate();
    const body = created?.body as {
      line_items: Array<{ price_data: { unit_amount: string } }>;
      metadata: Record<string, string>;
    };
    expect(body.line_items[0]?.price_data.unit_amount).toBe('3900');
    expect(body.metadata).toMatchObject({ experimentId: String(experimentId), variant: 'b' });
    expect(errors.filter((error) => !error.includes('Failed to load resource'))).toEqual([]);
  }, 90_000);

  test('without a running experiment the widget reads the share data once, without a visitor, and records no view', async () => {
    const { page, errors } = await browser.open();
    const reads = shareReads(page, plainShareId);
    const views = viewPosts(page, plainShareId);
    await page.goto(plainUrl);
    expect(await proPrice(page)).toBe('$29');
    await page.reload();
    expect(await proPrice(page)).toBe('$29');
    // A reload may be answered from the browser's cache, which sends no request at all.
    expect(reads.length).toBeGreaterThanOrEqual(1);
    expect(reads.length).toBeLessThanOrEqual(2);
    expect(reads.every((search) => search === '')).toBe(true);
    expect(views).toEqual([]);
    expect(errors.filter((error) => !error.includes('Failed to load resource'))).toEqual([]);
  }, 30_000);
});
