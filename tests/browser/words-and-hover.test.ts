import type { Page } from 'playwright-core';
import { beforeAll, expect, test } from 'vitest';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { describeInBrowser, useBrowser } from '../fixtures/browser.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';

/**
 * Two things a pricing page in real use meets: German's long compound words (a card must
 * wrap them, never run past its edge or clip them), and an owner who sets only primaryColor
 * (the buttons' hover must follow that colour, not stay the default indigo).
 */
const server = useLocalServer();
const browser = useBrowser();
let api: ApiClient;

const LONG = 'Unternehmenslizenzvereinbarung';

beforeAll(async () => {
  api = server.client((await newOwner('words')).writeKey);
});

/** Buy buttons are enabled (and so hover) only on a page that can take payments. */
const selling = {
  paymentSecretKey: 'sk_test_wordsAndHover0123456789',
  checkoutTestSuccessUrl: 'https://shop.example/thanks',
  checkoutTestCancelUrl: 'https://shop.example/pricing',
};

/** The demo page of a project, rendered. */
async function openDemo(page: Page, shareId: string): Promise<void> {
  await page.goto(`${server.url}/demo/${shareId}`);
  await page.locator('pricing-table .plans').waitFor({ timeout: 10_000 });
}

/**
 * Every piece of text in every card that lies (in part) outside its card, or is cut by an
 * element that clips it: text is measured by its own rectangles, not its element's box.
 */
function textOutsideCards(page: Page) {
  return page.evaluate(() => {
    const root = document.querySelector('pricing-table')?.shadowRoot;
    const found: string[] = [];
    for (const card of root?.querySelectorAll<HTMLElement>('article.card') ?? []) {
      const box = card.getBoundingClientRect();
      const walker = document.createTreeWalker(card, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        // Screen-reader text is clipped to 1 px on purpose.
        if (!node.textContent?.trim() || node.parentElement?.closest('.sr-only')) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        for (const rect of range.getClientRects()) {
          if (rect.width === 0) continue;
          if (rect.left < box.left - 0.5 || rect.right > box.right + 0.5)
            found.push(`${node.textContent} (past the card)`);
        }
        const parent = node.parentElement;
        if (parent && parent.scrollWidth > parent.clientWidth + 1 && getComputedStyle(parent).overflowX !== 'visible') {
          found.push(`${node.textContent} (clipped)`);
        }
      }
    }
    return found;
  });
}

describeInBrowser('the widget in Chromium: long words and the hover colour', () => {
  test.each([390, 1280])('long single words wrap inside their card at %i px', async (width) => {
    const project = await makeProject(api, { name: 'Lizenzen', currency: 'EUR', ...selling });
    const feature = await makeFeature(api, project.slug, {
      name: `${LONG}sverwaltung`,
      description: `${LONG}sbedingungen`,
    });
    for (const name of [LONG, `${LONG}splus`, 'Basis', `Premium${LONG}`]) {
      await makePlan(api, project.slug, {
        name,
        basePrice: 49,
        description: `Inklusive ${LONG}sverlängerungsoptionen`,
        features: [{ featureId: feature.id }],
      });
    }
    const { page, errors } = await browser.open({ viewport: { width, height: 900 } });
    await openDemo(page, project.shareId);
    const names = page.locator('pricing-table article.card h3');
    expect(await names.count()).toBeGreaterThanOrEqual(4);
    expect(await textOutsideCards(page)).toEqual([]);
    // The page itself never scrolls sideways for it.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    expect(errors).toEqual([]);
  });

  test('primaryColor alone: the buttons’ hover is a shade of it, not the default indigo', async () => {
    const project = await makeProject(api, { name: 'Teal', theme: { primaryColor: '#0F766E' }, ...selling });
    await makePlan(api, project.slug, { name: 'Pro', basePrice: 29 });
    const { page } = await browser.open();
    await openDemo(page, project.shareId);
    const button = page.locator('pricing-table article.card .button').first();
    const background = () => button.evaluate((element) => getComputedStyle(element).backgroundColor);
    expect(await background()).toBe('rgb(15, 118, 110)');
    await button.hover();
    // #0F766E 15% towards black.
    await expect.poll(background).toBe('rgb(13, 100, 94)');
  });

  test('a hover colour the owner chose stays, and so does the default pair', async () => {
    const chosen = await makeProject(api, {
      name: 'Chosen',
      theme: { primaryColor: '#0F766E', hoverColor: '#7C2D12' },
      ...selling,
    });
    const plain = await makeProject(api, { name: 'Plain', ...selling });
    for (const [project, hover] of [
      [chosen, 'rgb(124, 45, 18)'],
      [plain, 'rgb(67, 56, 202)'],
    ] as const) {
      await makePlan(api, project.slug, { name: 'Pro', basePrice: 29 });
      const { page } = await browser.open();
      await openDemo(page, project.shareId);
      const button = page.locator('pricing-table article.card .button').first();
      await button.hover();
      await expect.poll(() => button.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe(hover);
    }
  });
});
