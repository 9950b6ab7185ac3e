import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { beforeAll, expect, test, vi } from 'vitest';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { artifactPath, describeInBrowser, useBrowser } from '../fixtures/browser.ts';
import { makePlan, makeProject } from '../fixtures/factories.ts';
import { lowContrastTexts, runAxe } from './page-checks.ts';

/**
 * The widget with a customer token (lifecycle.md §2), in Chromium on a host page of another
 * origin (so the token's CORS preflights are real): the customer's card says "Current plan"
 * and offers "Manage billing", the others Upgrade/Downgrade; a click shows the preview in a
 * modal dialog (keyboard: focus in, Escape out, focus back), Confirm changes the plan at the
 * fake Stripe and the table redraws with the new current plan; "Manage billing" opens the
 * portal. axe-core finds nothing, in light and dark themes, at 390 and 1280 px.
 */
const { fake } = await vi.hoisted(async () => {
  const { startFakeStripe } = await import('#dev/fake-stripe/index.ts');
  const started = await startFakeStripe();
  process.env.STRIPE_API_BASE = started.url;
  process.env.STRIPE_TIMEOUT_MS = '2000';
  process.env.PROJECT_CACHE_TTL_SECONDS = '0';
  return { fake: started };
});

const server = useLocalServer();
const browser = useBrowser();
const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let api: ApiClient;
let hostPage = '';
let host: Server;
let hostUrl = '';

beforeAll(async () => {
  api = server.client((await newOwner('widget-changes')).writeKey);
  host = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(hostPage);
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  hostUrl = `http://localhost:${(host.address() as AddressInfo).port}/`;
  return async () => {
    await new Promise((resolve) => host.close(resolve));
    await fake.close();
  };
});

const dark = {
  pricingBackgroundColor: '#111827',
  pricingBorderColor: '#374151',
  primaryColor: '#5EEAD4',
  hoverColor: '#99F6E4',
  buttonTextColor: '#042F2E',
};

/** A project selling through the fake Stripe, a customer who bought Basic, and a token for it. */
async function customerOnBasic(theme: Record<string, string>) {
  const stripeKey = `sk_test_${Math.random().toString(36).slice(2).padEnd(24, 'x')}`;
  const shop = await makeProject(api, {
    paymentSecretKey: stripeKey,
    checkoutTestSuccessUrl: 'https://shop.example/ok',
    checkoutTestCancelUrl: 'https://shop.example/pricing',
    theme,
  });
  const endpoint = await fetch(`${fake.url}/v1/webhook_endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stripeKey}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ url: `${server.url}/api/payments/webhook/${shop.shareId}`, 'enabled_events[]': '*' }),
  }).then((r) => r.json() as Promise<{ secret: string }>);
  await api.put(`/api/v1/projects/${shop.slug}`, { paymentWebhookSecret: endpoint.secret });
  const basic = await makePlan(api, shop.slug, { name: 'Basic', basePrice: 10 });
  const pro = await makePlan(api, shop.slug, { name: 'Pro', basePrice: 30, isPopular: true });
  await makePlan(api, shop.slug, { name: 'Starter', basePrice: 5 });
  const session = await server.client().post('/api/payments/checkout', {
    shareId: shop.shareId,
    planId: basic.id,
    customerId: 'buyer',
  });
  fake.complete(session.body.sessionId);
  await fake.webhooksSettled();
  const token = (await api.post(`/api/v1/projects/${shop.slug}/customers/buyer/token`)).body.token as string;
  return { shop, basic, pro, token };
}

function page(shareId: string, token: string | undefined, background: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Account</title>
<style>body{margin:0;padding:2rem 1rem;background:${background};font-family:system-ui}</style></head>
<body><main><h1 style="position:absolute;clip:rect(0 0 0 0)">Your plan</h1>
<div data-pricing-id="${shareId}"${token ? ` data-customer-token="${token}"` : ''}></div></main>
<script src="${server.url}/widget.js" async></script></body></html>`;
}

const card = (p: Page, name: string) =>
  p.locator('pricing-table article.card').filter({ has: p.locator('h3', { hasText: new RegExp(`^${name}`) }) });

describeInBrowser('the widget with a customer token', () => {
  test.each([
    ['light', {}, '#ffffff'],
    ['dark', dark, '#030712'],
  ] as const)(
    '%s theme: current plan, preview dialog, change, portal',
    async (theme, colors, background) => {
      const { shop, pro, token } = await customerOnBasic(colors);
      hostPage = page(shop.shareId, token, background);
      const { page: p, errors } = await browser.open({ bypassCSP: true });
      for (const width of [390, 1280]) {
        await p.setViewportSize({ width, height: 900 });
        await p.goto(hostUrl);
        await card(p, 'Basic').locator('.current').waitFor({ timeout: 10_000 });
        await p.addScriptTag({ path: axePath });
        expect(await card(p, 'Basic').getAttribute('aria-current')).toBe('true');
        await expect.poll(() => card(p, 'Basic').getByRole('button').textContent()).toBe('Manage billing');
        expect(await card(p, 'Pro').getByRole('button').textContent()).toBe('Upgrade');
        expect(await card(p, 'Starter').getByRole('button').textContent()).toBe('Downgrade');
        expect(await runAxe(p), `${theme} ${width}`).toEqual([]);
        expect(await lowContrastTexts(p), `${theme} ${width}`).toEqual([]);

        // The preview, by keyboard: focus moves into the dialog, Escape closes it and gives focus back.
        await card(p, 'Pro').getByRole('button').focus();
        await p.keyboard.press('Enter');
        const dialog = p.getByRole('dialog', { name: 'Change to Pro' });
        await dialog.waitFor();
        await expect.poll(() => dialog.textContent()).toMatch(/Due today: \$\d+(\.\d\d)?Then/);
        expect(await dialog.textContent()).toContain('Then $30 each period');
        expect(
          await p.evaluate(() => document.querySelector('pricing-table')?.shadowRoot?.activeElement?.textContent),
        ).toBe('Confirm change');
        expect(await runAxe(p), `${theme} ${width} dialog`).toEqual([]);
        await p.screenshot({ path: artifactPath(`plan-change-${theme}-${width}.png`), animations: 'disabled' });
        await p.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });
        expect(
          await p.evaluate(() => document.querySelector('pricing-table')?.shadowRoot?.activeElement?.textContent),
        ).toBe('Upgrade');
      }

      // Confirm: the change is made at Stripe and the table shows Pro as the current plan.
      await card(p, 'Pro').getByRole('button').click();
      await p.getByRole('button', { name: 'Confirm change' }).click();
      await card(p, 'Pro').locator('.current').waitFor({ timeout: 10_000 });
      expect(await card(p, 'Basic').getByRole('button').textContent()).toBe('Downgrade');
      const customer = await api.get(`/api/v1/projects/${shop.slug}/customers/buyer`);
      expect(customer.body.subscription).toMatchObject({ planId: pro.id });
      const stripe = fake.subscriptions.get(customer.body.subscription.stripeSubscriptionId);
      expect(stripe?.items.data[0]?.price.unit_amount).toBe(3000);

      // Nothing went wrong on the host page (the portal's own page, on the fake, is not checked).
      // (Failed loads are the browser's own favicon requests; widget.test.ts leaves them out too.)
      expect(errors.filter((error) => !error.includes('Failed to load resource'))).toEqual([]);
      // Manage billing: the browser goes to the billing portal session's page.
      await card(p, 'Pro').getByRole('button', { name: 'Manage billing' }).click();
      await p.waitForURL(/\/portal\/bps_/);
      expect(await p.locator('h1').textContent()).toBe('Fake Stripe billing portal');
    },
    60_000,
  );

  test('without a token (or with a refused one) it is the table as always', async () => {
    const { shop } = await customerOnBasic({});
    for (const token of [undefined, 'pct_k1.forged.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
      hostPage = page(shop.shareId, token, '#ffffff');
      const { page: p } = await browser.open();
      await p.goto(hostUrl);
      await card(p, 'Basic').getByRole('button').waitFor({ timeout: 10_000 });
      expect(await card(p, 'Basic').getByRole('button').textContent()).toBe('Get started');
      expect(await p.locator('pricing-table .current').count()).toBe(0);
    }
  }, 60_000);
});
