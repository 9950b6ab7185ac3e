/**
 * widget.js: defines <pricing-table> and fills every <div data-pricing-id="…">, now and
 * whenever one is added later (single-page apps). Loading it twice is harmless.
 */
import { PricingTable, setDefaultBase } from './element.ts';

const TAG = 'pricing-table';

/** The service is where this script came from, unless the script tag says otherwise with data-api-base. */
function scriptBase(): string {
  const script = document.currentScript as HTMLScriptElement | null;
  if (script?.dataset.apiBase) return script.dataset.apiBase;
  if (script?.src) return script.src.replace(/\/widget\.js(?:[?#].*)?$/, '');
  return '';
}

function mount(root: ParentNode): void {
  for (const host of root.querySelectorAll<HTMLElement>('[data-pricing-id]')) {
    if (host.querySelector(`:scope > ${TAG}`)) continue;
    const table = document.createElement(TAG);
    table.setAttribute('share-id', host.dataset.pricingId ?? '');
    if (host.dataset.apiBase) table.setAttribute('api-base', host.dataset.apiBase);
    if (host.dataset.locale) table.setAttribute('locale', host.dataset.locale);
    if (host.dataset.customerId) table.setAttribute('customer-id', host.dataset.customerId);
    if (host.dataset.customerToken) table.setAttribute('customer-token', host.dataset.customerToken);
    host.append(table);
  }
}

try {
  setDefaultBase(scriptBase());
  if (!customElements.get(TAG)) customElements.define(TAG, PricingTable);
  mount(document);
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node instanceof HTMLElement && node.tagName !== TAG.toUpperCase()) {
          if (node.dataset.pricingId !== undefined && node.parentNode) mount(node.parentNode);
          else mount(node);
        }
      }
    }
  }).observe(document.documentElement, { childList: true, subtree: true });
} catch (error) {
  console.warn('[pricing-table] could not start', error);
}
