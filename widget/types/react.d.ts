/**
 * <pricing-table> in React 19 JSX (the `React.JSX` namespace): add this file to your
 * tsconfig's `include` (or `/// <reference path>` it) next to widget.js's script tag.
 */
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type { PricingTableAttributes, PricingTableElement } from './pricing-table.d.ts';

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'pricing-table': DetailedHTMLProps<HTMLAttributes<PricingTableElement>, PricingTableElement> &
        PricingTableAttributes;
    }
  }
}
