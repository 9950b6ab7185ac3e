import { h } from './dom.ts';
import { baseCss } from './styles.ts';

/**
 * Constructed style sheets where the browser has them: a host page's Content-Security-Policy
 * (a `style-src` without 'unsafe-inline') does not apply to them, so the widget keeps its
 * styles on strict sites, and the base sheet is parsed once for every widget on the page.
 * Older browsers (Safari before 16.4) get <style> elements. Either way CSS arrives as
 * text, never as markup.
 */
const constructable = (() => {
  try {
    new CSSStyleSheet().replaceSync('');
    return 'adoptedStyleSheets' in ShadowRoot.prototype;
  } catch {
    return false;
  }
})();

let sharedBase: CSSStyleSheet | undefined;

function sheetOf(css: string): CSSStyleSheet {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  return sheet;
}

/**
 * Fills the shadow root: the widget's own rules, then `:host` custom properties, then the
 * project's customCSS (last, so it wins at equal specificity), then the content.
 */
export function fillShadowRoot(
  root: ShadowRoot,
  content: Node[],
  { properties = [], customCss = '' }: { properties?: Array<[string, string]>; customCss?: string } = {},
): void {
  if (constructable) {
    sharedBase ??= sheetOf(baseCss);
    const theme = sheetOf(':host{}');
    setProperties(theme, properties);
    root.adoptedStyleSheets = [sharedBase, theme, sheetOf(customCss)];
    root.replaceChildren(...content);
    return;
  }
  const theme = h('style', {}, ':host{}');
  root.replaceChildren(h('style', {}, baseCss), theme, h('style', {}, customCss), ...content);
  if (theme.sheet) setProperties(theme.sheet, properties);
}

/** Through CSSOM, so a value can only ever be a property value, whatever it holds. */
function setProperties(sheet: CSSStyleSheet, properties: Array<[string, string]>): void {
  const rule = sheet.cssRules[0] as CSSStyleRule | undefined;
  for (const [name, value] of properties) rule?.style.setProperty(name, value);
}
