/**
 * <pricing-table> in Vue templates (vue-tsc / Volar). Vue must also leave the tag to the
 * browser: `compilerOptions.isCustomElement: (tag) => tag === 'pricing-table'` (see README).
 */
import type { DefineComponent } from 'vue';
import type { PricingTableAttributes } from './pricing-table.d.ts';

declare module 'vue' {
  interface GlobalComponents {
    'pricing-table': DefineComponent<PricingTableAttributes>;
  }
}
