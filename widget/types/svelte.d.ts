/** <pricing-table> in Svelte templates (svelte-check), through `svelte/elements`. */
import type { HTMLAttributes } from 'svelte/elements';
import type { PricingTableAttributes, PricingTableElement } from './pricing-table.d.ts';

declare module 'svelte/elements' {
  interface SvelteHTMLElements {
    'pricing-table': HTMLAttributes<PricingTableElement> & PricingTableAttributes;
  }
}
