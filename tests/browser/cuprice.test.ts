/**
 * The Cuprice-compatible part of the share answer, read in a browser the way Cuprice's React
 * SDK reads it: a small React page of our own (tests/browser/cuprice/pricing-page.tsx, bundled
 * here with esbuild) on another origin fetches GET /api/share/{shareId} and renders plans from
 * `pricingPlans` and a custom plan from `features`, never from this service's own `plans`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { describeInBrowser, useBrowser } from '../fixtures/browser.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';

const server = useLocalServer();
const browser = useBrowser();

let api: ApiClient;
let script = '';
let host: Server;
let hostUrl = '';
let hostPage = '';

beforeAll(async () => {
  const owner = await newOwner('cuprice');
  api = server.client(owner.writeKey);
  const bundled = await build({
    entryPoints: [join(import.meta.dirname, 'cuprice', 'pricing-page.tsx')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    jsx: 'automatic',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'error',
  });
  script = bundled.outputFiles[0]?.text ?? '';
  // The customer's site: another origin than the API's (localhost, not 127.0.0.1).
  host = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(hostPage);
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  hostUrl = `http://localhost:${(host.address() as AddressInfo).port}/`;
}, 60_000);

afterAll(async () => {
  if (host) await new Promise((resolve) => host.close(resolve));
});

const pageFor = (shareId: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pricing</title></head><body><div id="root"></div><script>window.cuprice = ${JSON.stringify({ apiUrl: server.url, shareId })};</script><script>${script.replaceAll('</script', '<\\/script')}</script></body></html>`;

describeInBrowser("a page written for Cuprice's SDK", () => {
  test('renders the visible plans in order, with their features, prices and the custom-plan features', async () => {
    const project = await makeProject(api, {
      name: 'Acme Cloud',
      description: 'Pick a plan',
      currency: 'EUR',
      annualDiscount: 0.25,
      annualDiscountEnabled: true,
    });
    const events = await makeFeature(api, project.slug, {
      name: 'Events',
      description: 'Tracked events per month',
      featureType: 'Usage Based',
      isCountable: true,
      usageCount: 5000,
      countPrice: 0.01,
      condition: 'Up to',
    });
    const sso = await makeFeature(api, project.slug, { name: 'SSO', basePrice: 15 });
    const seats = await makeFeature(api, project.slug, { name: 'Seats', basePrice: 5 });
    // Created out of display order: the page must sort by `order`, which follows ids.
    const free = await makePlan(api, project.slug, {
      name: 'Free',
      isFree: true,
      features: [{ featureId: events.id }],
    });
    await makePlan(api, project.slug, { name: 'Internal', isVisible: false, features: [{ featureId: sso.id }] });
    const pro = await makePlan(api, project.slug, {
      name: 'Pro',
      basePrice: 40,
      isPopular: true,
      features: [{ featureId: events.id, multiplier: 10 }, { featureId: sso.id }],
    });
    // No base price: Cuprice's cards show the sum of its features' base prices.
    const team = await makePlan(api, project.slug, {
      name: 'Team',
      basePrice: 0,
      features: [{ featureId: sso.id }, { featureId: seats.id }],
    });
    await api.put(`/api/v1/projects/${project.slug}/plans/${pro.id}`, { freemiumDay: 14 });

    hostPage = pageFor(project.shareId);
    const { page, errors } = await browser.open();
    await page.goto(hostUrl);
    await page.locator('article.plan').first().waitFor({ timeout: 10_000 });

    expect(await page.locator('h1').allTextContents()).toEqual(['Acme Cloud']);
    expect(await page.locator('h2').allTextContents()).toEqual(['Free', 'Pro', 'Team']);
    const ids = await page
      .locator('article.plan')
      .evaluateAll((cards) => cards.map((c) => c.getAttribute('data-plan-id')));
    expect(ids).toEqual([String(free.id), String(pro.id), String(team.id)]);
    expect(await page.locator('main').innerText()).not.toContain('Internal');
    expect(await page.locator('article.plan .price').allTextContents()).toEqual([
      '€0.00 / month',
      '€40.00 / month',
      '€20.00 / month',
    ]);
    const proCard = page.locator(`article.plan[data-plan-id="${pro.id}"]`);
    expect(await proCard.locator('.badge').allTextContents()).toEqual(['Most Popular']);
    expect(await proCard.locator('.trial').allTextContents()).toEqual(['14 days free']);
    expect(await proCard.locator('li').allTextContents()).toEqual(['Events', 'SSO']);
    expect(await proCard.locator('li').first().getAttribute('title')).toBe('Tracked events per month');
    expect(await page.locator('ul.custom li').allTextContents()).toEqual([
      'Events: €0.01 per Up to (5000)',
      'SSO: €15.00 per user/month',
      'Seats: €5.00 per user/month',
    ]);

    await page.getByRole('button', { name: 'Annual (SAVE 25%)' }).click();
    await page.locator('article.plan .price', { hasText: '/ year' }).first().waitFor();
    expect(await page.locator('article.plan .price').allTextContents()).toEqual([
      '€0.00 / year',
      '€360.00 / year',
      '€180.00 / year',
    ]);
    expect(errors).toEqual([]);
  });

  test('shows "No Plans Available" only when no plan is visible', async () => {
    const project = await makeProject(api, { name: 'Hidden only' });
    await makePlan(api, project.slug, { name: 'Secret', isVisible: false });
    hostPage = pageFor(project.shareId);
    const { page, errors } = await browser.open();
    await page.goto(hostUrl);
    await page.locator('h2', { hasText: 'No Plans Available' }).waitFor({ timeout: 10_000 });
    expect(await page.locator('article.plan').count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
