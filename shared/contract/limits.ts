/** Every bound of the API, in one place (the ones we chose: docs/decisions.md). */
export const limits = {
  nameMax: 100,
  slugMax: 64,
  projectDescriptionMax: 2_000,
  pricingPageDescriptionMax: 5_000,
  itemDescriptionMax: 1_000,
  fontFamilyMax: 200,
  urlMax: 2_048,
  customCssMax: 20_000,
  conditionMax: 50,
  featuresPerProject: 200,
  plansPerProject: 25,
  freemiumDayMax: 730,
  // Our own ceilings, so no number can overflow a payment amount or lose integer precision.
  priceMax: 1_000_000_000,
  multiplierMax: 1_000_000,
  usageCountMax: 1_000_000_000_000,
  // The smallest positive number accepted anywhere (DynamoDB cannot store below 1e-130).
  smallestPositive: 1e-9,
  bodyBytesMax: 256 * 1024,
  // Every answer as Lambda serialises it (the body as a JSON string), a megabyte under
  // Lambda's 6 MB response limit; the share answer sizes its Cuprice-compatible part to it.
  answerBytesMax: 5_000_000,
  // Checkout: seats per purchase, Stripe's largest unit_amount (8 digits in minor units),
  // and the length of an Idempotency-Key (Stripe takes 255; we prefix the project).
  seatsMax: 100_000,
  stripeAmountMax: 99_999_999,
  idempotencyKeyMax: 200,
  emailMax: 254,
  // Public payment calls (checkout, custom checkout, receipt), across every function
  // instance, in any window of this many seconds: at most this many per client address and
  // project, so that no one client can use up a project's sales, and this many per project
  // (429 past either).
  publicPaymentCallsPerClient: 30,
  publicPaymentCallsPerProject: 600,
  publicPaymentWindowSeconds: 60,
  // An experiment's views, in any window of this many seconds: at most this many counted per
  // client address and project, and this many per project; past either a view answers 204
  // and counts nothing (a view never breaks a pricing page).
  experimentViewsPerClient: 300,
  experimentViewsPerProject: 180_000,
  experimentViewWindowSeconds: 60,
} as const;
