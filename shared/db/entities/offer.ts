/** What the pricing page shows of every feature and plan a project offers, besides its own terms. */
export const offerAttributes = {
  name: { type: 'string', required: true },
  description: { type: 'string', required: true },
  basePrice: { type: 'number', required: true },
} as const;
