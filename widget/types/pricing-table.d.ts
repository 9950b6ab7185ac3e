/**
 * Types for the <pricing-table> element that widget.js defines. Reference this file (or copy it
 * into your project) to type the element itself; react.d.ts, vue.d.ts and svelte.d.ts add it
 * to those frameworks' templates.
 */

/** The element's attributes, as a template writes them. */
export interface PricingTableAttributes {
  /** The project's share id (required). */
  'share-id': string;
  /** The pricing service's base URL; default: where widget.js was loaded from. */
  'api-base'?: string;
  /** en, de, fr, es, pt or ja (any BCP 47 tag; others fall back to English); default: the nearest `lang`, then the browser's. */
  locale?: string;
  /** Your own id for the signed-in buyer: checkout links the sale to it. */
  'customer-id'?: string;
  /**
   * A customer token your backend minted (`POST …/customers/{customerId}/token`, valid 1 hour):
   * the customer's plan shows as "Current plan" with "Manage billing", the others Upgrade or
   * Downgrade it in place after a preview.
   */
  'customer-token'?: string;
}

/** The element: an HTMLElement whose shadow root holds the table. */
export interface PricingTableElement extends HTMLElement {}

/** Stable `::part()` names (README, "Styling from the host page"). */
export type PricingTablePart =
  | 'container'
  | 'header'
  | 'toggle'
  | 'card'
  | 'custom-card'
  | 'name'
  | 'badge'
  | 'price'
  | 'button'
  | 'features'
  | 'feature'
  | 'show-all'
  | 'message'
  | 'retry'
  | 'current'
  | 'manage'
  | 'dialog';

declare global {
  interface HTMLElementTagNameMap {
    'pricing-table': PricingTableElement;
  }
}
