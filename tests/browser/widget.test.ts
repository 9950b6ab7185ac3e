import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, expect, test, vi } from 'vitest';
import type { RecordedRequest } from '#dev/fake-stripe/index.ts';
import { seedDemo } from '#dev/seed-demo.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { artifactPath, describeInBrowser, useBrowser } from '../fixtures/browser.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';

// The fake Stripe must exist before the handlers read STRIPE_API_BASE at load.
const { fake } = await vi.hoisted(async () => {
  const { startFakeStripe } = await import('#dev/fake-stripe/index.ts');
  const started = await startFakeStripe();
  process.env.STRIPE_API_BASE = started.url;
  process.env.STRIPE_TIMEOUT_MS = '1000';
  return { fake: started };
});

const server = useLocalServer();
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
    expect(await starter.locator('button').count()).toBe(0);
    expect(await amountOf(pro)).toBe('$29/month');
    expect(await pro.locator('.note').textContent()).toBe('14-day free trial');
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
    // 29 × 12 × 0.8 and 12 × 12 × 0.8: decisions.md's yearly price.
    expect(await amountOf(cardOf(page, 'Pro'))).toBe('$278.40/year');
    expect(await amountOf(cardOf(page, 'Team'))).toBe('$115.20/year');
    expect(await cardOf(page, 'Team').locator('.note').textContent()).toBe('Billed yearly');

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
    expect(await amountOf(cardOf(page, 'Pro'))).toBe('$278.40/year');
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
    // 12 × (1 + 2 × 1) × 12 × 0.8 = 345.60
    expect(await amountOf(team)).toBe('$345.60/year');
    expect(await team.locator('.price .sr-only').textContent()).toBe('$345.60 per year, for 3 seats');

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
    // 42.345 × 12 × 0.8 = 406.512 → 406.51
    const shown = await amountOf(custom);
    expect(shown).toBe('$406.51/year');

    await Promise.all([page.waitForURL(`${fake.url}/pay/**`), button.click()]);
    const created = fake.lastSessionCreate();
    const lineItem = sessionLineItem(created);
    expect(lineItem?.price_data).toMatchObject({ unit_amount: '40651', recurring: { interval: 'year' } });
    expect(`$${(Number(lineItem?.price_data.unit_amount) / 100).toFixed(2)}/year`).toBe(shown);
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

  test('a project that cannot take payments says so in the card, from the server’s 409', async () => {
    const { slug, shareId } = await makeProject(api, { name: 'No Stripe' });
    await makePlan(api, slug, { name: 'Paid', basePrice: 9 });
    const { page, errors } = await browser.open();
    await page.goto(`${server.url}/demo/${shareId}`);
    await rendered(page);
    const paid = cardOf(page, 'Paid');
    await paid.locator('[part=button]').click();
    await expect.poll(() => paid.locator('[role=alert]').textContent()).toContain('cannot take payments yet');
    expect(await paid.locator('[part=button]').getAttribute('aria-disabled')).toBe('false');
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
    await page.route('**/api/share/NotJsonAtAll00000000', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/html',
        headers: { 'access-control-allow-origin': '*' },
        body: '<html>captive portal</html>',
      }),
    );
    await page.route('**/api/share/WrongShape0000000000', (route) =>
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
    await page.route(`**/api/share/${offline.shareId}`, (route) =>
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
});
