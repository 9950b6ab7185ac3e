import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { describeInBrowser, useBrowser } from '../fixtures/browser.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';
import { storeInProject } from '../fixtures/table.ts';

/**
 * customCSS restyles the widget inside its box and nothing outside it (docs/decisions.md
 * "customCSS"): the worst CSS the API accepts, and CSS stored before the API refused anything,
 * draw no pixel and catch no click outside the <pricing-table> element's box.
 */

const server = useLocalServer();
const browser = useBrowser();

let hostPage = '';
let host: Server;
let hostUrl = '';
let api: ApiClient;
let ownerId = '';

beforeAll(async () => {
  const owner = await newOwner('css');
  ownerId = owner.ownerId;
  api = server.client(owner.writeKey);
  host = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(hostPage);
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  hostUrl = `http://localhost:${(host.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  if (host) await new Promise((resolve) => host.close(resolve));
});

/**
 * Everything the rule lets through that could reach past the box if nothing contained it:
 * positioned and transformed descendants, huge negative margins, generated text, outlines,
 * shadows, filters, an animation, and every host property a rule on :host may set.
 */
const worstAccepted = `
:host { margin: 0 auto; padding: 0; border: 4px solid rgb(0 0 0); background: linear-gradient(rgb(255 0 0), rgb(0 0 255)); --pricing-primary: #FF0000; display: block; position: relative; max-width: 100% }
.pricing { padding: 40px }
.header h2 { margin: -400px -600px 0 }
.header { position: absolute; bottom: -3000px; right: -3000px; width: 6000px; height: 6000px; background: rgb(255 0 0); z-index: 2147483647 }
.card { transform: translate(-900px, -300px) scale(3); box-shadow: 0 0 0 3000px rgb(255 0 0 / 0.9); outline: 40px solid rgb(0 0 255); outline-offset: 300px !important }
.card h3::after { content: "OVER THE PAGE"; position: absolute; top: -2000px; left: -2000px; font-size: 300px; white-space: nowrap; color: rgb(255 0 0) }
.plans { filter: drop-shadow(0 0 300px rgb(255 0 0)) }
.button { position: sticky; top: 0; margin-left: -5000px; width: 10000px }
.price { position: relative; left: -3000px; top: 3000px }
.features { mix-blend-mode: difference }
@media (min-width: 1px) { .toggle-row { transform: rotate(180deg) translateY(2000px) } }
@supports (display: grid) { .badge { position: absolute; inset: -5000px; z-index: 10 } }
@keyframes grow { to { transform: scale(40) } }
.custom-card { animation: grow 1ms forwards }
`;

/** What the issue found: the widget covering the whole viewport, and text drawn over the page. */
const storedAttack = `
:host { position: fixed !important; inset: 0; z-index: 2147483647; transform: translateY(-100px); box-shadow: 0 0 0 3000px red; outline: 200px solid red; filter: drop-shadow(0 0 200px red); margin-top: 0 }
.pricing { position: fixed; inset: 0; z-index: 2147483647; background: red }
.card::after { content: "HACKED"; position: fixed; top: 0; left: 0; font-size: 200px; color: red }
`;

async function widgetProject(customCSS?: string) {
  const project = await makeProject(api, customCSS === undefined ? {} : { theme: { customCSS } });
  const { slug, shareId } = project;
  const feature = await makeFeature(api, slug, { name: 'Reports' });
  await makePlan(api, slug, { name: 'Basic', basePrice: 5, features: [{ featureId: feature.id }] });
  await makePlan(api, slug, { name: 'Pro', basePrice: 25, isPopular: true });
  return { slug: slug as string, shareId: shareId as string };
}

/** A customer page: content above, the widget in a centred 640px column, content below. */
function pageWith(shareId: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><style>
body{margin:0;background:#fff;font:16px sans-serif}
.band{height:300px;background:rgb(20,160,60)}
#column{width:640px;margin:40px auto}
</style></head><body>
<div class="band" id="above">above</div>
<div id="column"><pricing-table share-id="${shareId}"></pricing-table></div>
<div class="band" id="below">below</div>
<script src="${server.url}/widget.js" async></script></body></html>`;
}

async function openWidget(shareId: string): Promise<Page> {
  hostPage = pageWith(shareId);
  const { page } = await browser.open({ viewport: { width: 1280, height: 900 } });
  await page.goto(hostUrl);
  await page.locator('pricing-table article.card').first().waitFor({ timeout: 10_000 });
  await page.waitForTimeout(300); // the animation ends, fonts settle
  return page;
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

const hostBox = (page: Page): Promise<Box> =>
  page.evaluate(() => {
    const { x, y, width, height } = document.querySelector('pricing-table')?.getBoundingClientRect() ?? new DOMRect();
    return { x: x + scrollX, y: y + scrollY, width, height };
  });

/**
 * Every shadow-root element whose box reaches outside the host's box, and the points outside the
 * host's box (a grid over the page, plus the corners and centre of each such element) where a hit
 * lands on the widget instead of the host page.
 */
async function hits(page: Page) {
  return page.evaluate(() => {
    const widget = document.querySelector('pricing-table');
    const root = widget?.shadowRoot;
    if (!widget || !root) throw new Error('no widget');
    const box = widget.getBoundingClientRect();
    const outside = (x: number, y: number) =>
      x < box.left - 1 || x > box.right + 1 || y < box.top - 1 || y > box.bottom + 1;
    const points: Array<[number, number]> = [];
    for (let x = 2; x < innerWidth; x += 37) for (let y = 2; y < innerHeight; y += 37) points.push([x, y]);
    let escaping = 0;
    for (const element of root.querySelectorAll('*')) {
      const r = element.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (r.left < box.left || r.right > box.right || r.top < box.top || r.bottom > box.bottom) escaping++;
      const xs = [r.left + 1, (r.left + r.right) / 2, r.right - 1].map((x) => Math.min(Math.max(x, 1), innerWidth - 1));
      const ys = [r.top + 1, (r.top + r.bottom) / 2, r.bottom - 1].map((y) =>
        Math.min(Math.max(y, 1), innerHeight - 1),
      );
      for (const x of xs) for (const y of ys) points.push([x, y]);
    }
    const onWidget = points
      .filter(([x, y]) => outside(x, y))
      .filter(([x, y]) => document.elementFromPoint(x, y) === widget)
      .map(([x, y]) => `${Math.round(x)},${Math.round(y)}`);
    return { escaping, onWidget };
  });
}

/** The page outside `box`, as four screenshots (above, below, left and right of it). */
async function around(page: Page, box: Box): Promise<Buffer[]> {
  const { width, height } = await page.evaluate(() => ({
    width: document.documentElement.scrollWidth,
    height: document.documentElement.scrollHeight,
  }));
  const regions = [
    { x: 0, y: 0, width, height: box.y },
    { x: 0, y: box.y + box.height, width, height: height - box.y - box.height },
    { x: 0, y: box.y, width: box.x, height: box.height },
    { x: box.x + box.width, y: box.y, width: width - box.x - box.width, height: box.height },
  ].filter((region) => region.width >= 1 && region.height >= 1);
  expect(regions).toHaveLength(4);
  const shots: Buffer[] = [];
  for (const clip of regions) shots.push(await page.screenshot({ clip, fullPage: true, animations: 'disabled' }));
  return shots;
}

/** The same page with the widget swapped for an empty block of its exact size: what "nothing drawn" looks like. */
async function withoutWidget(page: Page): Promise<void> {
  await page.evaluate(() => {
    const widget = document.querySelector('pricing-table');
    if (!widget) return;
    const { width, height } = widget.getBoundingClientRect();
    const blank = document.createElement('div');
    blank.style.cssText = `width:${width}px;height:${height}px;margin:0 auto`;
    widget.replaceWith(blank);
  });
}

async function expectConfined(page: Page, box: Box) {
  const { escaping, onWidget } = await hits(page);
  expect(onWidget, 'points outside the box that hit the widget').toEqual([]);
  const drawn = await around(page, box);
  await withoutWidget(page);
  const blank = await around(page, box);
  // Byte-equal PNGs of the same size and encoder: the same pixels.
  drawn.forEach((shot, i) => {
    expect(shot.equals(blank[i] as Buffer), `pixels differ in region ${i} (above, below, left, right)`).toBe(true);
  });
  return escaping;
}

describeInBrowser('customCSS stays inside the widget’s box (Chromium)', () => {
  test('the worst CSS the API accepts draws nothing and catches no hit outside the element’s box', async () => {
    const put = await api.post('/api/v1/projects', { name: 'Probe', theme: { customCSS: worstAccepted } });
    expect(put.status, put.text).toBe(201);
    const { shareId } = await widgetProject(worstAccepted);
    const page = await openWidget(shareId);
    const box = await hostBox(page);
    // The widget sits where the page put it: in the column, between the bands, not stretched over them.
    const column = await page.evaluate(() => {
      const r = document.getElementById('column')?.getBoundingClientRect();
      return { x: (r?.x ?? 0) + scrollX, y: (r?.y ?? 0) + scrollY, width: r?.width };
    });
    expect(box).toMatchObject(column);
    expect(box.height).toBeGreaterThan(100);
    const escaping = await expectConfined(page, box);
    // The CSS does push boxes out (so the test can fail): they are clipped, not absent.
    expect(escaping).toBeGreaterThan(5);
  });

  test('a customCSS stored before the rule (fixed, over the viewport, with text) still stays in the box', async () => {
    const { slug, shareId } = await widgetProject();
    await storeInProject({ ownerId, slug, shareId }, 'theme', 'customCSS', storedAttack);
    // The API would refuse it now, naming the rules.
    const again = await api.put(`/api/v1/projects/${slug}`, { theme: { customCSS: storedAttack } });
    expect(again.status).toBe(400);
    const page = await openWidget(shareId);
    expect(
      await page.evaluate(
        () => document.querySelector('pricing-table')?.shadowRoot?.adoptedStyleSheets[2]?.cssRules.length,
      ),
    ).toBe(3);
    const box = await hostBox(page);
    const column = await page.evaluate(() => {
      const r = document.getElementById('column')?.getBoundingClientRect();
      return { x: (r?.x ?? 0) + scrollX, y: (r?.y ?? 0) + scrollY, width: r?.width };
    });
    expect(box).toMatchObject(column);
    expect(await page.evaluate(() => document.elementFromPoint(640, 150)?.id)).toBe('above');
    await expectConfined(page, box);
  });
});
