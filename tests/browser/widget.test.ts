import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, expect, test, vi } from 'vitest';
import type { RecordedRequest } from '#dev/fake-stripe/index.ts';
import { seedDemo } from '#dev/seed-demo.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { ARTIFACTS, artifactPath, describeInBrowser, useBrowser } from '../fixtures/browser.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';
import { lowContrastTexts, runAxe } from './page-checks.ts';

// The fake Stripe must exist before the handlers read STRIPE_API_BASE at load.
const { fake } = await vi.hoisted(async () => {
  const { startFakeStripe } = await import('#dev/fake-stripe/index.ts');
  const started = await startFakeStripe();
  process.env.STRIPE_API_BASE = started.url;
  process.env.STRIPE_TIMEOUT_MS = '1000';
  return { fake: started };
});

const server = useLocalServer();
const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const browser = useBrowser();

/** A customer's own site on another origin (localhost, not 127.0.0.1), serving whatever page a test sets. */
let hostPage = '';
let host: Server;
let hostUrl = '';

let api: ApiClient;
let demo: { slug: string; shareId: string; demoUrl: string };

beforeAll(async () => {
  const owner = await newOwner('widget');
  api = server.client(owner.writeKey);
  demo = await seedDemo({ baseUrl: server.url, key: owner.writeKey });
  host = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(hostPage);
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  hostUrl = `http://localhost:${(host.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  if (host) await new Promise((resolve) => host.close(resolve));
  await fake.close();
});

beforeEach(() => {
  fake.reset();
});

/** The widget's share read of `shareId`, whatever its query (it names the visitor). */
const sharePath = (shareId: string) => (url: URL) => url.pathname === `/api/share/${shareId}`;

const widgetScript = () => `<script src="${server.url}/widget.js" async></script>`;

/** The host page a customer writes, with anything the host itself does around the widget. */
function customerPage(body: string, head = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">${head}</head><body>${body}${widgetScript()}</body></html>`;
}

/** The card whose title starts with `name`, in the page or inside one widget's container. */
function cardOf(scope: Page | Locator, name: string): Locator {
  const page = 'goto' in scope ? scope : scope.page();
  return scope
    .locator('pricing-table article.card, article.card')
    .filter({ has: page.locator('h3', { hasText: new RegExp(`^${name}`) }) });
}

const amountOf = async (card: Locator) =>
  `${await card.locator('.price .amount').textContent()}${await card.locator('.price .period').textContent()}`;

/** Waits for the first widget's cards; a message instead (not found, failed) fails with its text. */
async function rendered(page: Page): Promise<void> {
  const settled = page.locator('pricing-table .plans, pricing-table .message:not([aria-busy])').first();
  await settled.waitFor({ timeout: 10_000 });
  const message = await page
    .locator('pricing-table .message')
    .first()
    .textContent({ timeout: 100 })
    .catch(() => null);
  if (message) throw new Error(`The widget shows "${message}" instead of plans`);
}

async function updateDemo(body: Record<string, unknown>): Promise<void> {
  const response = await api.put(`/api/v1/projects/${demo.slug}`, body);
  expect(response.status).toBe(200);
}

const rgb = (hex: string) => {
  const n = Number.parseInt(hex.slice(1), 16);
  return `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`;
};

/** The one line item of a checkout session the fake Stripe received, as the SDK form-encoded it. */
function sessionLineItem(created: RecordedRequest | undefined): { price_data: Record<string, unknown> } | undefined {
  return (created?.body.line_items as Array<{ price_data: Record<string, unknown> }> | undefined)?.[0];
}

/** Errors that are not the browser reporting a 4xx/5xx answer the test asked for. */
const unexpected = (errors: string[]) => errors.filter((error) => !error.includes('Failed to load resource'));

describeInBrowser('the widget in Chromium', () => {
  test('the demo page shows the header, every visible plan with its price, features and limits, and the custom plan', async () => {
    const { page, errors } = await browser.open();
    await page.goto(demo.demoUrl);
    await rendered(page);

    await expect.poll(() => page.locator('pricing-table header h2').textContent()).toBe('Acme Analytics');
    expect(await page.locator('pricing-table header p').textContent()).toContain('Start free');
    expect(await page.locator('pricing-table article.card').count()).toBe(4);

    const starter = cardOf(page, 'Starter');
    const pro = cardOf(page, 'Pro');
    const team = cardOf(page, 'Team');
    expect(await amountOf(starter)).toBe('Free');
    // The free plan is not bought: its button is a link to the project's signupUrl.
    expect(await starter.locator('button').count()).toBe(0);
    expect(await starter.locator('a[part=button]').getAttribute('href')).toBe(`${demo.demoUrl}?signup=1`);
    expect(await amountOf(pro)).toBe('$29/month');
    expect(await pro.locator('.trial').textContent()).toBe('14-day free trial');
    expect(await pro.locator('button').textContent()).toBe('Start free trial');
    expect(await amountOf(team)).toBe('$12/month');
    expect(await team.locator('label', { hasText: 'Seats' }).locator('input').inputValue()).toBe('1');

    const features = await pro.locator('li.feature').allTextContents();
    expect(features).toEqual([
      '✓Included: Dashboards · Up to 30',
      '✓Included: Tracked events · Up to 1,000,000',
      '✓Included: Data retention (months) · Unlimited',
      '✓Included: Single sign-on',
      '✕Not included: Priority support',
    ]);
    // Screen readers hear the whole price, not "$29 slash month".
    expect(await pro.locator('.price .sr-only').textContent()).toBe('$29 per month');
    expect(await cardOf(page, 'Custom plan').getAttribute('part')).toBe('custom-card');

    await page.screenshot({ path: artifactPath('widget-demo.png'), fullPage: true, animations: 'disabled' });
    expect(unexpected(errors)).toEqual([]);
  });

  test('the annual toggle shows yearly prices with the discount, by mouse and by keyboard', async () => {
    const { page, errors } = await browser.open();
    await page.goto(demo.demoUrl);
    await rendered(page);
    const toggle = page.locator('pricing-table [role=switch]');
    expect(await toggle.getAttribute('aria-checked')).toBe('false');
    expect(await page.locator('pricing-table .toggle').textContent()).toContain('Save 20%');

    await toggle.click();
    expect(await toggle.getAttribute('aria-checked')).toBe('true');
    // 29 × 12 × 0.8 and 12 × 12 × 0.8 (decisions.md's yearly price) beneath, a twelfth of it large.
    expect(await amountOf(cardOf(page, 'Pro'))).toBe('$23.20/month');
    expect(await cardOf(page, 'Pro').locator('.billed').textContent()).toBe('$278.40 billed yearly');
    expect(await cardOf(page, 'Pro').locator('.price .sr-only').textContent()).toBe(
      '$23.20 per month, billed yearly as $278.40',
    );
    expect(await amountOf(cardOf(page, 'Team'))).toBe('$9.60/month');
    expect(await cardOf(page, 'Team').locator('.billed').textContent()).toBe('$115.20 billed yearly');
    // The words beside the switch flip it too.
    await page.locator('pricing-table .toggle').getByText('Monthly').click();
    expect(await toggle.getAttribute('aria-checked')).toBe('false');
    expect(await cardOf(page, 'Team').locator('.billed').textContent()).toBe('');
    await page.locator('pricing-table .toggle').getByText('Annual billing').click();
    expect(await toggle.getAttribute('aria-checked')).toBe('true');

    // Keyboard only: Tab reaches the switch, Space and Enter flip it, and focus is visible.
    await page.reload();
    await rendered(page);
    let focused = '';
    for (let tab = 0; tab < 10 && focused !== 'switch'; tab++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(
        () => document.querySelector('pricing-table')?.shadowRoot?.activeElement?.getAttribute('role') ?? '',
      );
    }
    expect(focused).toBe('switch');
    const outline = await toggle.evaluate((element) => getComputedStyle(element).outlineStyle);
    expect(outline).not.toBe('none');
    await page.keyboard.press('Space');
    expect(await toggle.getAttribute('aria-checked')).toBe('true');
    expect(await amountOf(cardOf(page, 'Pro'))).toBe('$23.20/month');
    await page.keyboard.press('Enter');
    expect(await toggle.getAttribute('aria-checked')).toBe('false');
    expect(await amountOf(cardOf(page, 'Pro'))).toBe('$29/month');
    expect(unexpected(errors)).toEqual([]);
  });

  test('the popular badge sits on the card top or inline with the name, as the theme says', async () => {
    const { page } = await browser.open();
    await page.goto(demo.demoUrl);
    await rendered(page);
    const pro = cardOf(page, 'Pro');
    const badge = pro.locator('[part=badge]');
    expect(await badge.textContent()).toBe('Most popular');
    const [badgeBox, cardBox] = [await badge.boundingBox(), await pro.boundingBox()];
    // Centred on the top border: it starts above the card.
    expect(badgeBox && cardBox && badgeBox.y < cardBox.y).toBe(true);
    expect(await cardOf(page, 'Team').locator('[part=badge]').count()).toBe(0);

    await updateDemo({ theme: { popularBadgePosition: 'inline' } });
    try {
      // A new visitor: the share response is cacheable for 30 s, so this page would still see 'top'.
      const { page } = await browser.open();
      await page.goto(demo.demoUrl);
      await rendered(page);
      const inline = cardOf(page, 'Pro').locator('h3 [part=badge]');
      expect(await inline.count()).toBe(1);
      const [inlineBox, cardAfter] = [await inline.boundingBox(), await cardOf(page, 'Pro').boundingBox()];
      expect(inlineBox && cardAfter && inlineBox.y > cardAfter.y).toBe(true);
    } finally {
      await updateDemo({ theme: { popularBadgePosition: 'top' } });
    }
  });

  test('every theme setting and the customCSS take effect (computed styles), and a host can use ::part()', async () => {
    const theme = {
      fontFamily: 'Georgia, serif',
      primaryColor: '#B45309',
      hoverColor: '#7C2D12',
      buttonTextColor: '#FEF3C7',
      borderRadius: '3px',
      pricingBackgroundColor: '#FFFBEB',
      pricingBorderColor: '#92400E',
      headerAlign: 'left',
      descriptionAlign: 'right',
      toggleAlign: 'right',
      customCSS: '.card h3 { text-transform: uppercase; } .feature.excluded { text-decoration: line-through; }',
    };
    const { slug, shareId } = await makeProject(api, {
      name: 'Themed',
      paymentSecretKey: 'sk_test_themed00000000000000000',
      pricingPageDescription: 'Plans for everyone',
      annualDiscountEnabled: true,
      annualDiscount: 0.1,
      theme,
    });
    await makeFeature(api, slug, { name: 'Seats', basePrice: 1 });
    await makePlan(api, slug, { name: 'Only', basePrice: 5, isPopular: true });
    const { page, errors } = await browser.open();
    hostPage = customerPage(
      `<div data-pricing-id="${shareId}"></div>`,
      '<style>pricing-table::part(card) { outline: 4px dashed rgb(1, 2, 3); } .card { background: black !important; }</style>',
    );
    await page.goto(hostUrl);
    await rendered(page);

    const card = cardOf(page, 'Only');
    const button = card.locator('[part=button]');
    const style = (locator: Locator, property: string) =>
      locator.evaluate((element, name) => getComputedStyle(element).getPropertyValue(name), property);
    expect(await style(button, 'background-color')).toBe(rgb(theme.primaryColor));
    expect(await style(button, 'color')).toBe(rgb(theme.buttonTextColor));
    expect(await style(button, 'border-top-left-radius')).toBe('3px');
    expect(await style(card, 'background-color')).toBe(rgb(theme.pricingBackgroundColor));
    expect(await style(card, 'border-top-color')).toBe(rgb(theme.primaryColor)); // popular: primary border
    expect(await style(cardOf(page, 'Custom plan'), 'border-top-color')).toBe(rgb(theme.pricingBorderColor));
    expect(await style(card, 'border-top-left-radius')).toBe('3px');
    expect(await style(card, 'font-family')).toBe('Georgia, serif');
    expect(await style(page.locator('pricing-table header h2'), 'text-align')).toBe('left');
    expect(await style(page.locator('pricing-table header p'), 'text-align')).toBe('right');
    expect(await style(page.locator('pricing-table .toggle-row'), 'justify-content')).toBe('flex-end');
    // customCSS, inside the shadow root, over the defaults.
    expect(await style(card.locator('h3'), 'text-transform')).toBe('uppercase');
    expect(await style(card.locator('.feature.excluded').first(), 'text-decoration-line')).toBe('line-through');
    // The host styles a part; its own `.card` rule cannot reach inside.
    expect(await style(card, 'outline-style')).toBe('dashed');
    expect(await style(card, 'outline-color')).toBe('rgb(1, 2, 3)');
    // Custom properties carry the theme for customCSS and ::part() rules.
    expect((await style(card, '--pricing-primary')).trim()).toBe(theme.primaryColor);

    await button.hover();
    await expect.poll(() => style(button, 'background-color')).toBe(rgb(theme.hoverColor));
    expect(unexpected(errors)).toEqual([]);

    // The header's two switches, seen by a new visitor (the share data is cached for 30 s).
    const updated = await api.put(`/api/v1/projects/${slug}`, { theme: { showProjectName: false } });
    expect(updated.status).toBe(200);
    const second = await browser.open();
    await second.page.goto(hostUrl);
    await rendered(second.page);
    expect(await second.page.locator('pricing-table header h2').count()).toBe(0);
    expect(await second.page.locator('pricing-table header p').textContent()).toBe('Plans for everyone');
    await api.put(`/api/v1/projects/${slug}`, { theme: { showPricingHeader: false } });
    const third = await browser.open();
    await third.page.goto(hostUrl);
    await rendered(third.page);
    expect(await third.page.locator('pricing-table header').count()).toBe(0);
  });

  test('a customCSS with markup in it stays CSS: no script runs, no element appears', async () => {
    const attack =
      '</style><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"><style>.card h3 { color: rgb(0, 128, 0); }';
    const { slug, shareId } = await makeProject(api, { name: 'Hostile', theme: { customCSS: attack } });
    await makePlan(api, slug, { name: 'Plan', basePrice: 3 });
    const { page, errors } = await browser.open();
    // A host page without any Content-Security-Policy: only the widget stands between.
    hostPage = customerPage(`<pricing-table share-id="${shareId}"></pricing-table>`);
    await page.goto(hostUrl);
    await rendered(page);
    await page.waitForTimeout(200);
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    const inside = await page.evaluate(() => {
      const root = document.querySelector('pricing-table')?.shadowRoot;
      return {
        elements: root?.querySelectorAll('script, img, style').length,
        sheets: root?.adoptedStyleSheets.length,
        // What the CSS parser made of it: the markup is an invalid selector, so no rule at all.
        customRules: root?.adoptedStyleSheets[2]?.cssRules.length,
      };
    });
    expect(inside).toEqual({ elements: 0, sheets: 3, customRules: 0 });
    expect(await cardOf(page, 'Plan').locator('h3').count()).toBe(1);
    expect(unexpected(errors)).toEqual([]);
  });

  test('a plan checkout sends the browser to the fake Stripe page with the server-computed amount', async () => {
    const { page, errors } = await browser.open();
    await page.goto(demo.demoUrl);
    await rendered(page);
    await page.locator('pricing-table [role=switch]').click();
    const team = cardOf(page, 'Team');
    await team.locator('input[type=number]').fill('3');
    // 12 × (1 + 2 × 1) × 12 × 0.8 = 345.60 a year, 28.80 a month of it
    expect(await amountOf(team)).toBe('$28.80/month');
    expect(await team.locator('.billed').textContent()).toBe('$345.60 billed yearly');
    expect(await team.locator('.price .sr-only').textContent()).toBe(
      '$28.80 per month, billed yearly as $345.60, for 3 seats',
    );

    await Promise.all([page.waitForURL(`${fake.url}/pay/**`), team.locator('[part=button]').click()]);
    const created = fake.lastSessionCreate();
    const lineItem = sessionLineItem(created);
    expect(lineItem?.price_data).toMatchObject({
      unit_amount: '34560',
      currency: 'usd',
      recurring: { interval: 'year' },
    });
    expect(created?.body.metadata).toMatchObject({ seats: '3' });
    expect(await page.locator('.amount').textContent()).toContain('345.60');

    // Paying on the fake's page comes back to the demo page with the session id.
    await Promise.all([page.waitForURL(/\/demo\/.*checkout=success.*session_id=cs_test_/), page.click('button')]);
    // …whose note links to the receipt: the plan and the amount the page showed.
    await page.locator('.done a').click();
    const receipt = JSON.parse((await page.locator('body').textContent()) ?? '');
    expect(receipt).toMatchObject({ planName: 'Team', customPlan: false, total: 345.6, currency: 'USD' });
    expect(unexpected(errors)).toEqual([]);
  });

  test('the custom plan shows a live total that is exactly what the server charges', async () => {
    const { page, errors } = await browser.open();
    await page.goto(demo.demoUrl);
    await rendered(page);
    const custom = cardOf(page, 'Custom plan');
    const button = custom.locator('[part=button]');
    expect(await button.getAttribute('aria-disabled')).toBe('true');
    expect(await amountOf(custom)).toBe('$0/month');

    const choose = (name: string) => custom.getByRole('checkbox', { name: new RegExp(`^${name}`) }).check();
    const quantity = (name: string) => custom.getByRole('spinbutton', { name: `Quantity of ${name}` });
    await choose('Dashboards');
    await quantity('Dashboards').fill('5');
    await choose('Tracked events');
    await quantity('Tracked events').fill('12345');
    await choose('Single sign-on');
    // (5 + 1 × 5) + (0 + 0.001 × 12345) + 20 = 42.345 per month
    expect(await amountOf(custom)).toBe('$42.35/month');
    await page.locator('pricing-table [role=switch]').click();
    // 42.345 × 12 × 0.8 = 406.512 → 406.51 billed yearly; 33.88 a month of it
    expect(await amountOf(custom)).toBe('$33.88/month');
    const shown = await custom.locator('.billed').textContent();
    expect(shown).toBe('$406.51 billed yearly');
    // Each line follows the interval: Dashboards' $5 + $1 per unit a month is $4 + $0.80 with 20% off.
    expect(await custom.locator('.each').first().textContent()).toBe('$4/month + $0.80 per unit');

    await Promise.all([page.waitForURL(`${fake.url}/pay/**`), button.click()]);
    const created = fake.lastSessionCreate();
    const lineItem = sessionLineItem(created);
    expect(lineItem?.price_data).toMatchObject({ unit_amount: '40651', recurring: { interval: 'year' } });
    expect(`$${(Number(lineItem?.price_data.unit_amount) / 100).toFixed(2)} billed yearly`).toBe(shown);
    expect(unexpected(errors)).toEqual([]);
  });

  test('while checkout waits the button shows progress and a second click sends nothing; a failure is a message in the card', async () => {
    const { page, errors } = await browser.open();
    await page.goto(demo.demoUrl);
    await rendered(page);
    const pro = cardOf(page, 'Pro');
    const button = pro.locator('[part=button]');
    fake.hangNext(2); // the SDK's attempt and its retry: both time out, then a 502
    await button.click();
    expect(await button.getAttribute('aria-busy')).toBe('true');
    expect(await button.textContent()).toBe('Opening checkout…');
    await button.click({ force: true });
    await button.click({ force: true });
    const alert = pro.locator('[role=alert]');
    await expect.poll(() => alert.textContent(), { timeout: 10_000 }).not.toBe('');
    expect(fake.requests.filter((request) => request.path === '/v1/checkout/sessions')).toHaveLength(2);
    expect(await button.getAttribute('aria-busy')).toBeNull();
    expect(await button.textContent()).toBe('Start free trial');
    expect(page.url()).toBe(demo.demoUrl);
    expect(unexpected(errors)).toEqual([]);
  });

  test('without a payment key the buy buttons are disabled with a reason and a click sends nothing; a server refusal is a message in the card', async () => {
    const { slug, shareId } = await makeProject(api, { name: 'No Stripe' });
    await makePlan(api, slug, { name: 'Paid', basePrice: 9 });
    await makeFeature(api, slug, { name: 'Extra', basePrice: 2 });
    const { page, errors } = await browser.open();
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(request.url());
    });
    await page.goto(`${server.url}/demo/${shareId}`);
    await rendered(page);
    const paid = cardOf(page, 'Paid');
    const button = paid.locator('[part=button]');
    expect(await button.getAttribute('aria-disabled')).toBe('true');
    const reason = paid.locator('.reason');
    expect(await reason.textContent()).toBe('Purchases are not open yet.');
    expect(await button.getAttribute('aria-describedby')).toBe(await reason.getAttribute('id'));
    expect(Number(await button.evaluate((element) => getComputedStyle(element).opacity))).toBeLessThan(1);
    // Playwright refuses to click an aria-disabled control; a visitor's click still lands.
    await button.click({ force: true });
    const custom = cardOf(page, 'Custom plan');
    await custom.getByRole('checkbox', { name: /^Extra/ }).check();
    expect(await custom.locator('[part=button]').getAttribute('aria-disabled')).toBe('true');
    await custom.locator('[part=button]').click({ force: true });
    await page.waitForTimeout(100);
    expect(posts).toEqual([]);
    expect(await paid.locator('[role=alert]').textContent()).toBe('');

    // A key but no redirect URL for its mode: the server's 409 is a message in the card.
    const keyed = await makeProject(api, { name: 'No URLs', paymentSecretKey: 'sk_test_nourls0000000000000000' });
    await makePlan(api, keyed.slug, { name: 'Keyed', basePrice: 9 });
    await page.goto(`${server.url}/demo/${keyed.shareId}`);
    await rendered(page);
    const keyedCard = cardOf(page, 'Keyed');
    await keyedCard.locator('[part=button]').click();
    await expect.poll(() => keyedCard.locator('[role=alert]').textContent()).toContain('cannot take payments yet');
    expect(await keyedCard.locator('[part=button]').getAttribute('aria-disabled')).toBe('false');
    expect(unexpected(errors)).toEqual([]);
  });

  test('a customer page with a strict Content-Security-Policy (no inline styles) still gets a styled, working widget', async () => {
    const { page, errors } = await browser.open();
    const policy = `default-src 'none'; script-src ${server.url}; connect-src ${server.url}; style-src 'self'`;
    hostPage = customerPage(
      `<div data-pricing-id="${demo.shareId}"></div>`,
      `<meta http-equiv="Content-Security-Policy" content="${policy}">`,
    );
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(hostUrl);
    await rendered(page);
    const button = cardOf(page, 'Pro').locator('[part=button]');
    expect(await button.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe(rgb('#0F766E'));
    expect(await cardOf(page, 'Pro').evaluate((element) => getComputedStyle(element).borderTopLeftRadius)).toBe('16px');
    expect(violations).toEqual([]);
    await Promise.all([page.waitForURL(`${fake.url}/pay/**`), button.click()]);
    expect(unexpected(errors)).toEqual([]);
  });

  test('in a browser without constructed style sheets (Safari before 16.4) the <style> fallback themes it the same', async () => {
    const { page, errors } = await browser.open();
    await page.addInitScript(() => {
      // Gone, not undefined: the widget checks with `in`.
      delete (ShadowRoot.prototype as { adoptedStyleSheets?: unknown }).adoptedStyleSheets;
    });
    await page.goto(demo.demoUrl);
    await rendered(page);
    const pro = cardOf(page, 'Pro');
    expect(await pro.locator('[part=button]').evaluate((element) => getComputedStyle(element).backgroundColor)).toBe(
      rgb('#0F766E'),
    );
    // The seeded customCSS gives cards a shadow.
    expect(await pro.evaluate((element) => getComputedStyle(element).boxShadow)).not.toBe('none');
    expect(
      await page.evaluate(() => document.querySelector('pricing-table')?.shadowRoot?.querySelectorAll('style').length),
    ).toBe(3);
    expect(unexpected(errors)).toEqual([]);
  });

  test('answers it cannot use (not JSON, the wrong shape) become a message in the widget, never a page error', async () => {
    const { page, errors } = await browser.open();
    hostPage = customerPage(`
      <pricing-table share-id="NotJsonAtAll00000000" id="text"></pricing-table>
      <pricing-table share-id="WrongShape0000000000" id="shape"></pricing-table>`);
    await page.route(sharePath('NotJsonAtAll00000000'), (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/html',
        headers: { 'access-control-allow-origin': '*' },
        body: '<html>captive portal</html>',
      }),
    );
    await page.route(sharePath('WrongShape0000000000'), (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        headers: { 'access-control-allow-origin': '*' },
        body: JSON.stringify({ currency: 'EUR', plans: [{ name: 'Broken' }], features: [], themeSettings: {} }),
      }),
    );
    await page.goto(hostUrl);
    await expect.poll(() => page.locator('#text .message p').textContent()).toBe('Pricing could not be loaded.');
    expect(await page.locator('#text').getByRole('button', { name: 'Try again' }).count()).toBe(1);
    await expect.poll(() => page.locator('#shape .message p').textContent()).toBe('Pricing could not be shown.');
    expect(errors.filter((error) => error.startsWith('pageerror'))).toEqual([]);
  });

  test('several widgets on a customer page of another origin, an unknown share id, and a retry after a network failure', async () => {
    const offline = await makeProject(api, { name: 'Offline once' });
    await makePlan(api, offline.slug, { name: 'Later', basePrice: 4 });
    const { page, errors } = await browser.open();
    hostPage = customerPage(`
      <div data-pricing-id="${demo.shareId}" id="one"></div>
      <pricing-table share-id="${demo.shareId}" id="two" locale="de-DE"></pricing-table>
      <pricing-table share-id="NoSuchShareIdAtAll00" id="three"></pricing-table>
      <pricing-table share-id="${offline.shareId}" id="four"></pricing-table>`);
    // The fourth widget's first request fails as if the visitor were offline.
    let failures = 0;
    await page.route(sharePath(offline.shareId), (route) =>
      failures++ === 0 ? route.abort('internetdisconnected') : route.continue(),
    );
    await page.goto(hostUrl);
    await page.locator('#one pricing-table .plans').waitFor();
    await page.locator('#two .plans').waitFor();
    expect(await cardOf(page, 'Pro').count()).toBe(2);
    // Formatting follows the element's locale.
    expect(await cardOf(page.locator('#two'), 'Pro').locator('.price .amount').textContent()).toBe('29\u00a0$');
    await expect.poll(() => page.locator('#three .message').textContent()).toBe('This pricing table is not available.');
    // The host's markup is as it wrote it, with the element added inside its div.
    expect(await page.locator('body > div#one > pricing-table').count()).toBe(1);

    const four = page.locator('#four');
    await expect.poll(() => four.locator('.message p').textContent()).toBe('Pricing could not be loaded.');
    await four.getByRole('button', { name: 'Try again' }).click();
    await four.locator('.plans').waitFor();
    expect(await cardOf(page, 'Later').count()).toBe(1);
    expect(failures).toBe(2);

    // Checkout from another origin: the preflighted POST goes through, and so does the visitor.
    await Promise.all([
      page.waitForURL(`${fake.url}/pay/**`),
      cardOf(page.locator('#two'), 'Pro').locator('[part=button]').click(),
    ]);
    expect(unexpected(errors)).toEqual([]);
  });
  test('dark themes and dark host pages: every text the widget shows reads at 4.5:1 or more, inputs included', async () => {
    const { slug, shareId } = await makeProject(api, {
      name: 'Night',
      pricingPageDescription: 'Plans for night owls',
      annualDiscountEnabled: true,
      annualDiscount: 0.25,
      theme: { pricingBackgroundColor: '#111827', pricingBorderColor: '#374151' },
    });
    const counted = await makeFeature(api, slug, { name: 'Seats', isCountable: true, usageCount: 5, countPrice: 2 });
    await makePlan(api, slug, { name: 'Lite', isFree: true, description: 'For trying it out' });
    await makePlan(api, slug, {
      name: 'Plus',
      basePrice: 19,
      isPopular: true,
      isPerUserPricing: true,
      features: [{ featureId: counted.id }],
    });
    const pages = [
      ['dark cards on a light page', ''],
      ['dark cards on a dark page', '<style>body { background: #0B1020; }</style>'],
    ] as const;
    for (const [label, head] of pages) {
      const { page, errors } = await browser.open();
      hostPage = customerPage(`<main><pricing-table share-id="${shareId}"></pricing-table></main>`, head);
      await page.goto(hostUrl);
      await rendered(page);
      await cardOf(page, 'Custom plan').getByRole('checkbox').check();
      expect(await lowContrastTexts(page), label).toEqual([]);
      const input = cardOf(page, 'Plus').locator('input[type=number]');
      // Not white on white: the input is the card's colour, its text the theme's text colour.
      expect(await input.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe(rgb('#111827'));
      expect(await input.evaluate((element) => getComputedStyle(element).color)).not.toBe(rgb('#111827'));
      expect(unexpected(errors)).toEqual([]);
    }
    // The default (light) theme on a dark host page: the header and the toggle turn light.
    const { slug: lightSlug, shareId: lightShare } = await makeProject(api, {
      name: 'Day',
      pricingPageDescription: 'A light table on a dark site',
      annualDiscountEnabled: true,
      annualDiscount: 0.1,
    });
    await makePlan(api, lightSlug, { name: 'Basic', basePrice: 5 });
    const { page } = await browser.open();
    hostPage = customerPage(
      `<main><pricing-table share-id="${lightShare}"></pricing-table></main>`,
      '<style>body { background: #1F2937; }</style>',
    );
    await page.goto(hostUrl);
    await rendered(page);
    expect(await lowContrastTexts(page)).toEqual([]);
    // Explicit colours win over derived ones.
    await api.put(`/api/v1/projects/${slug}`, { theme: { textColor: '#FDE68A', mutedTextColor: '#FCD34D' } });
    const second = await browser.open();
    hostPage = customerPage(`<pricing-table share-id="${shareId}"></pricing-table>`);
    await second.page.goto(hostUrl);
    await rendered(second.page);
    const title = cardOf(second.page, 'Plus').locator('h3');
    expect(await title.evaluate((element) => getComputedStyle(element).color)).toBe(rgb('#FDE68A'));
  });

  test('cards line up: names, prices, buttons and feature lists share rows whatever the text lengths', async () => {
    const { slug, shareId } = await makeProject(api, { name: 'Aligned' });
    const feature = await makeFeature(api, slug, { name: 'Reports' });
    const features = [{ featureId: feature.id }];
    await makePlan(api, slug, { name: 'Short', basePrice: 5, description: 'Small', features });
    await makePlan(api, slug, {
      name: 'Long',
      basePrice: 15,
      isPopular: true,
      description: 'A description long enough to wrap onto two or three lines in a card of this width, and then some.',
      features,
    });
    await makePlan(api, slug, { name: 'Seats', basePrice: 7, isPerUserPricing: true, features });
    await makePlan(api, slug, { name: 'Bare', basePrice: 9, features });
    const { page, errors } = await browser.open();
    hostPage = customerPage(`<pricing-table share-id="${shareId}"></pricing-table>`);
    await page.goto(hostUrl);
    await rendered(page);
    const names = ['Short', 'Long', 'Seats', 'Bare'];
    const tops = async (selector: string) =>
      Promise.all(
        names.map(async (name) => (await cardOf(page, name).locator(selector).first().boundingBox())?.y ?? Number.NaN),
      );
    const cardTops = await tops('xpath=.');
    expect(Math.max(...cardTops) - Math.min(...cardTops)).toBeLessThanOrEqual(1); // one row at 1280 px
    for (const selector of ['h3', '.price .amount', '[part=button]', '.features']) {
      const values = await tops(selector);
      expect(Math.max(...values) - Math.min(...values), selector).toBeLessThanOrEqual(1);
    }
    // The popular card's ring does not move its content: same padding edge as the others.
    const inset = async (name: string) => {
      const [card, title] = [
        await cardOf(page, name).boundingBox(),
        await cardOf(page, name).locator('h3').boundingBox(),
      ];
      return (title?.x ?? 0) - (card?.x ?? 0);
    };
    expect(await inset('Long')).toBeCloseTo(await inset('Short'), 0);
    expect(unexpected(errors)).toEqual([]);
  });

  test('long lists: 8 features then "Show all N features" (keyboard too); the custom builder scrolls in a bounded box', async () => {
    const { slug, shareId } = await makeProject(api, { name: 'Many' });
    const features = [];
    for (let i = 1; i <= 20; i++) features.push(await makeFeature(api, slug, { name: `Feature ${i}`, basePrice: 1 }));
    await makePlan(api, slug, { name: 'All', basePrice: 50, features: features.map(({ id }) => ({ featureId: id })) });
    await makePlan(api, slug, { name: 'Some', basePrice: 10, features: [{ featureId: features[19]?.id }] });
    const { page, errors } = await browser.open();
    hostPage = customerPage(`<pricing-table share-id="${shareId}"></pricing-table>`);
    await page.goto(hostUrl);
    await rendered(page);
    const all = cardOf(page, 'All');
    expect(await all.locator('li.feature:visible').count()).toBe(8);
    const more = all.locator('[part=show-all]');
    expect(await all.getByRole('button', { name: 'Show all 20 features' }).count()).toBe(1);
    expect(await more.getAttribute('aria-expanded')).toBe('false');
    expect(await more.getAttribute('aria-controls')).toBe(await all.locator('ul.features').getAttribute('id'));
    await more.focus();
    await page.keyboard.press('Enter');
    expect(await all.locator('li.feature:visible').count()).toBe(20);
    expect(await more.getAttribute('aria-expanded')).toBe('true');
    expect(await more.textContent()).toBe('Show fewer features');
    // Included features come first: "Some" lists its one feature above the 19 it lacks.
    expect(await cardOf(page, 'Some').locator('li.feature').first().textContent()).toContain('Feature 20');
    const pick = cardOf(page, 'Custom plan').locator('.pick');
    const box = await pick.evaluate((element) => ({ client: element.clientHeight, scroll: element.scrollHeight }));
    expect(box.client).toBeLessThanOrEqual(22 * 16);
    expect(box.scroll).toBeGreaterThan(box.client);
    expect(unexpected(errors)).toEqual([]);
  });

  test('labels follow the element’s locale, else the nearest lang, else the browser; numbers follow too', async () => {
    const { page, errors } = await browser.open();
    hostPage = customerPage(`
      <pricing-table share-id="${demo.shareId}" id="de" locale="de-DE"></pricing-table>
      <div lang="fr"><pricing-table share-id="${demo.shareId}" id="fr"></pricing-table></div>
      <div lang="es-MX"><pricing-table share-id="${demo.shareId}" id="es"></pricing-table></div>
      <pricing-table share-id="${demo.shareId}" id="pt" locale="pt-BR"></pricing-table>
      <pricing-table share-id="${demo.shareId}" id="ja" locale="ja"></pricing-table>`);
    await page.goto(hostUrl);
    const expected = {
      de: ['Monatlich', 'Kostenlos testen', 'Kostenlos'],
      fr: ['Mensuel', 'Essai gratuit', 'Gratuit'],
      es: ['Mensual', 'Prueba gratis', 'Gratis'],
      pt: ['Mensal', 'Teste grátis', 'Grátis'],
      ja: ['月払い', '無料で試す', '無料'],
    };
    for (const [id, [monthly, trial, free]] of Object.entries(expected)) {
      const table = page.locator(`#${id}`);
      await table.locator('.plans').waitFor();
      expect(await table.locator('.toggle .choice-label').first().textContent()).toBe(monthly);
      expect(await table.locator('article.card').nth(1).locator('[part=button]').textContent()).toBe(trial);
      expect(await table.locator('article.card').first().locator('.price .amount').textContent()).toBe(free);
    }
    expect(await page.locator('#de article.card').nth(1).locator('.price .amount').textContent()).toBe('29\u00a0$');
    expect(unexpected(errors)).toEqual([]);

    // No locale, no lang: the browser's language.
    const japanese = await browser.open({ locale: 'ja-JP' });
    hostPage = `<!doctype html><html><body><pricing-table share-id="${demo.shareId}"></pricing-table>${widgetScript()}</body></html>`;
    await japanese.page.goto(hostUrl);
    await rendered(japanese.page);
    expect(await japanese.page.locator('pricing-table .toggle .choice-label').first().textContent()).toBe('月払い');
  });

  test('states: messages use the widget font and readable colours; disabled inputs look disabled; checkboxes take the theme', async () => {
    const { page, errors } = await browser.open();
    hostPage = customerPage(
      `<pricing-table share-id="NoSuchShareIdAtAll00"></pricing-table>`,
      '<style>body { font-family: Georgia, serif; background: #111111; }</style>',
    );
    await page.goto(hostUrl);
    const message = page.locator('pricing-table .message p');
    await expect.poll(() => message.textContent()).toBe('This pricing table is not available.');
    expect(await message.evaluate((element) => getComputedStyle(element).fontFamily)).toMatch(/^Inter/);
    expect(await lowContrastTexts(page)).toEqual([]);

    await page.goto(demo.demoUrl);
    await rendered(page);
    const custom = cardOf(page, 'Custom plan');
    const quantity = custom.getByRole('spinbutton', { name: 'Quantity of Dashboards' });
    expect(await quantity.isDisabled()).toBe(true);
    expect(Number(await quantity.evaluate((element) => getComputedStyle(element).opacity))).toBeLessThan(1);
    const checkbox = custom.getByRole('checkbox').first();
    expect(await checkbox.evaluate((element) => getComputedStyle(element).accentColor)).toBe(rgb('#0F766E'));
    expect(unexpected(errors)).toEqual([]);
  });

  test('stable ::part names: every documented part is there, and a host can style them', async () => {
    const { page } = await browser.open();
    await page.goto(demo.demoUrl);
    await rendered(page);
    const parts = await page.evaluate(() => {
      const root = document.querySelector('pricing-table')?.shadowRoot;
      return [...new Set([...(root?.querySelectorAll('[part]') ?? [])].flatMap((e) => [...e.part]))].sort();
    });
    for (const part of ['badge', 'button', 'card', 'container', 'custom-card', 'feature', 'features', 'header']) {
      expect(parts).toContain(part);
    }
    for (const part of ['name', 'price', 'toggle']) expect(parts).toContain(part);
    // The free plan's sign-up link is a `button` part like the others.
    expect(await cardOf(page, 'Starter').locator('a').getAttribute('part')).toBe('button');
  });

  test('gates: axe-core finds nothing in light and dark, monthly and annual, builder open; screenshots at 1280/768/390; no button wraps', async () => {
    const owner = await newOwner('widget-dark');
    const dark = await seedDemo({ baseUrl: server.url, key: owner.writeKey });
    const darkApi = server.client(owner.writeKey);
    const put = await darkApi.put(`/api/v1/projects/${dark.slug}`, {
      theme: {
        pricingBackgroundColor: '#111827',
        pricingBorderColor: '#374151',
        primaryColor: '#5EEAD4',
        hoverColor: '#99F6E4',
        buttonTextColor: '#042F2E',
        customCSS: '',
      },
    });
    expect(put.status).toBe(200);
    const darkPage = customerPage(
      `<main><h1 class="sr">Pricing</h1><div data-pricing-id="${dark.shareId}"></div></main>`,
      '<title>Dark demo</title><style>body { margin: 0; padding: 3rem 1.5rem; background: #030712; font-family: system-ui; } main { max-width: 72rem; margin: 0 auto; } .sr { position: absolute; clip: rect(0 0 0 0); }</style>',
    );
    const screens = `${ARTIFACTS}/screens`;
    mkdirSync(screens, { recursive: true });
    for (const [theme, url] of [
      ['light', demo.demoUrl],
      ['dark', hostUrl],
    ] as const) {
      const { page, errors } = await browser.open({ bypassCSP: true });
      hostPage = darkPage;
      await page.goto(url);
      await rendered(page);
      await page.addScriptTag({ path: axePath });
      expect(await runAxe(page), `${theme}, monthly`).toEqual([]);
      const custom = cardOf(page, 'Custom plan');
      await custom.getByRole('checkbox', { name: /^Dashboards/ }).check();
      await custom.getByRole('checkbox', { name: /^Single sign-on/ }).check();
      await page.locator('pricing-table [role=switch]').click();
      expect(await runAxe(page), `${theme}, annual, builder open`).toEqual([]);
      expect(await lowContrastTexts(page), theme).toEqual([]);
      for (const width of [1280, 768, 390]) {
        await page.setViewportSize({ width, height: 900 });
        const wrapped = await page.evaluate(() =>
          [...(document.querySelector('pricing-table')?.shadowRoot?.querySelectorAll<HTMLElement>('.button') ?? [])]
            .filter((button) => button.scrollWidth > button.clientWidth || button.clientHeight > 48)
            .map((button) => button.textContent),
        );
        expect(wrapped, `${theme} at ${width}px`).toEqual([]);
        await page.screenshot({ path: `${screens}/${theme}-${width}.png`, fullPage: true, animations: 'disabled' });
      }
      expect(unexpected(errors)).toEqual([]);
    }
  });
});
