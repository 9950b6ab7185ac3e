/**
 * Property-based fuzz of the three public payment endpoints over real HTTP:
 * `POST /api/payments/checkout`, `POST /api/payments/checkout/custom` and
 * `GET /api/payments/receipt`, with the fake Stripe behind them.
 *
 * Every answer must be one of 200/400/404/409/413 (never a 5xx: the fake Stripe is healthy,
 * so not even a 502), carry X-Request-Id and `Access-Control-Allow-Origin: *`, and every
 * error must be decisions.md's one error shape with the code of its status.
 *
 * The checkout properties are model-based: an independent reimplementation of
 * decisions.md's "Checkout and receipts" (validation order, refusals, and the price
 * formulas) predicts each status, and for every 200 exactly what must reach Stripe. Nothing
 * that is refused may reach Stripe at all.
 *
 * Seeds are fixed (printed per property); FUZZ_SEED=<n> replays with another base seed and
 * FUZZ_RUNS_FACTOR=<n> multiplies the number of runs.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { z } from 'zod';
import type { RecordedRequest } from '#dev/fake-stripe/index.ts';
import { type ApiClient, newOwner, spacedClock, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';
import { type Answer, sendRaw, utf8 } from '../fixtures/wire.ts';

// The fake Stripe server must exist before the handlers read STRIPE_API_BASE at load.
const { fake } = await vi.hoisted(async () => {
  const { startFakeStripe } = await import('#dev/fake-stripe/index.ts');
  const started = await startFakeStripe();
  process.env.STRIPE_API_BASE = started.url;
  process.env.STRIPE_TIMEOUT_MS = '5000';
  return { fake: started };
});

const BASE_SEED = Number(process.env.FUZZ_SEED ?? 20_260_314);
const RUNS_FACTOR = Number(process.env.FUZZ_RUNS_FACTOR ?? 1);
const HANG_MS = 15_000;

// decisions.md and limits.md, restated here rather than imported: the test is the model.
const KIB = 1024;
const BODY_LIMIT = 256 * KIB;
const SEATS_MAX = 100_000;
const QUANTITY_MAX = 1_000_000_000_000;
const SMALLEST_POSITIVE = 1e-9;
const FEATURES_MAX = 200;
const SHARE_ID_FIELD_MAX = 200;
const EMAIL_MAX = 254;
const IDEMPOTENCY_KEY_MAX = 200;
/** Stripe's largest unit_amount (8 digits in the minor unit). */
const STRIPE_AMOUNT_MAX = 99_999_999;
const CUSTOM_PLAN = 'Custom plan';

// ---------------------------------------------------------------------------------------
// Fixtures: what the test creates, kept as the model's source of truth.
// ---------------------------------------------------------------------------------------

type Currency = 'USD' | 'EUR' | 'JPY';
type State = 'ready' | 'no-key' | 'no-urls' | 'inactive';

interface PlanSpec {
  name: string;
  basePrice: number;
  isFree: boolean;
  isVisible: boolean;
  isPerUserPricing: boolean;
  perUserMultiplier: number;
  freemiumDay: number;
}
interface PlanFx extends PlanSpec {
  id: number;
  /** The version checkout sells: the plan's current one, as its create answered. */
  version: number;
}
interface FeatureSpec {
  name: string;
  basePrice: number;
  isCountable: boolean;
  usageCount: number;
  countPrice: number;
}
interface FeatureFx extends FeatureSpec {
  id: number;
}
interface ProjectSpec {
  label: string;
  state: State;
  currency: Currency;
  annualDiscount: number;
  annualDiscountEnabled: boolean;
  successUrl?: string;
  /** The success URL Stripe must get: `session_id={CHECKOUT_SESSION_ID}` added to the query. */
  expectedSuccessUrl?: string;
  cancelUrl?: string;
  plans: PlanSpec[];
  features: FeatureSpec[];
}
interface ProjectFx extends Omit<ProjectSpec, 'plans' | 'features'> {
  id: number;
  shareId: string;
  key: string | undefined;
  plans: PlanFx[];
  features: FeatureFx[];
}

const plan = (name: string, fields: Partial<PlanSpec> = {}): PlanSpec => ({
  name,
  basePrice: 10,
  isFree: false,
  isVisible: true,
  isPerUserPricing: false,
  perUserMultiplier: 1,
  freemiumDay: 0,
  ...fields,
});
const feature = (name: string, fields: Partial<FeatureSpec> = {}): FeatureSpec => ({
  name,
  basePrice: 1,
  isCountable: false,
  usageCount: 0,
  countPrice: 0,
  ...fields,
});

const SPECS: ProjectSpec[] = [
  {
    label: 'usd',
    state: 'ready',
    currency: 'USD',
    annualDiscount: 0.2,
    annualDiscountEnabled: true,
    successUrl: 'https://shop.example/thanks?from=fuzz',
    expectedSuccessUrl: 'https://shop.example/thanks?from=fuzz&session_id={CHECKOUT_SESSION_ID}',
    cancelUrl: 'https://shop.example/pricing?cancelled=1',
    plans: [
      plan('Pro', { basePrice: 19.99, freemiumDay: 14 }),
      plan('Team', { basePrice: 12.5, isPerUserPricing: true, perUserMultiplier: 0.35 }),
      plan('Scale', { basePrice: 999.99, isPerUserPricing: true, perUserMultiplier: 0.5, freemiumDay: 7 }),
      plan('Every seat', { basePrice: 8, isPerUserPricing: true, perUserMultiplier: 1 }),
      plan('Zero', { basePrice: 0 }),
      plan('Big', { basePrice: 999_999.99 }),
      plan('Free', { basePrice: 0, isFree: true }),
      plan('Secret', { basePrice: 99, isVisible: false }),
    ],
    features: [
      feature('Events', { basePrice: 5, isCountable: true, usageCount: 1000, countPrice: 0.0125 }),
      feature('Seats', { basePrice: 0, isCountable: true, usageCount: 3, countPrice: 3.333 }),
      feature('SSO', { basePrice: 20 }),
      feature('Support', { basePrice: 9.99 }),
      feature('Ünïcode ✓ "quoted" \\ 😀', { basePrice: 0.5 }),
    ],
  },
  {
    label: 'eur',
    state: 'ready',
    currency: 'EUR',
    annualDiscount: 0.15,
    annualDiscountEnabled: false,
    successUrl: 'https://shop.example/eur/thanks',
    expectedSuccessUrl: 'https://shop.example/eur/thanks?session_id={CHECKOUT_SESSION_ID}',
    cancelUrl: 'https://shop.example/eur/pricing',
    plans: [
      plan('Starter', { basePrice: 7.49 }),
      plan('Crew', { basePrice: 3.99, isPerUserPricing: true, perUserMultiplier: 0.8333, freemiumDay: 30 }),
      plan('Gratis', { basePrice: 5, isFree: true, isPerUserPricing: true, perUserMultiplier: 0.5 }),
      plan('Hidden crew', { basePrice: 4, isPerUserPricing: true, perUserMultiplier: 0.5, isVisible: false }),
    ],
    features: [
      feature('API calls', { basePrice: 1.1, isCountable: true, usageCount: 20_000, countPrice: 0.00075 }),
      feature('Audit log', { basePrice: 4.2 }),
      feature('Storage GB', { basePrice: 0, isCountable: true, usageCount: 0, countPrice: 0.021 }),
    ],
  },
  {
    label: 'jpy',
    state: 'ready',
    currency: 'JPY',
    annualDiscount: 0.15,
    annualDiscountEnabled: true,
    successUrl: 'https://shop.example/jp/thanks?a=1#top',
    expectedSuccessUrl: 'https://shop.example/jp/thanks?a=1&session_id={CHECKOUT_SESSION_ID}#top',
    cancelUrl: 'https://shop.example/jp/pricing',
    plans: [
      plan('Yen', { basePrice: 1499, freemiumDay: 3 }),
      plan('Chīmu', { basePrice: 980, isPerUserPricing: true, perUserMultiplier: 0.45 }),
      plan('Muryō', { isFree: true }),
    ],
    features: [
      feature('Storage', { basePrice: 100, isCountable: true, usageCount: 10, countPrice: 1.5 }),
      feature('Backup', { basePrice: 333 }),
    ],
  },
  {
    label: 'no-key',
    state: 'no-key',
    currency: 'USD',
    annualDiscount: 0.1,
    annualDiscountEnabled: true,
    plans: [
      plan('Basic', { basePrice: 9 }),
      plan('Per seat', { basePrice: 2, isPerUserPricing: true, perUserMultiplier: 0.5 }),
      plan('Free', { isFree: true }),
    ],
    features: [
      feature('Plain', { basePrice: 3 }),
      feature('Count', { isCountable: true, usageCount: 5, countPrice: 1 }),
    ],
  },
  {
    label: 'no-urls',
    state: 'no-urls',
    currency: 'EUR',
    annualDiscount: 0,
    annualDiscountEnabled: false,
    plans: [plan('Basic', { basePrice: 9 })],
    features: [feature('Plain', { basePrice: 3 })],
  },
  {
    label: 'inactive',
    state: 'inactive',
    currency: 'USD',
    annualDiscount: 0.2,
    annualDiscountEnabled: true,
    successUrl: 'https://shop.example/off/thanks',
    expectedSuccessUrl: 'https://shop.example/off/thanks?session_id={CHECKOUT_SESSION_ID}',
    cancelUrl: 'https://shop.example/off/pricing',
    plans: [plan('Basic', { basePrice: 5 })],
    features: [feature('Plain', { basePrice: 3 })],
  },
];

/** Share ids that name no project: well-formed, too short, too long for the pattern, odd text. */
const UNKNOWN_SHARE_IDS = [
  'nosuchshareid0000000000000',
  'x',
  'a'.repeat(SHARE_ID_FIELD_MAX),
  '../../etc/passwd',
  'ÜÑÍÇØÐÉ-share-id-000',
  ' nosuchshareid0000000000000',
];

/** zod's e-mail rule accepts these (and so does Stripe's)… */
const VALID_EMAILS = ['ada@example.com', 'o.reilly+tag@sub.example.org', 'UPPER@EXAMPLE.COM', "o'hara@example.ie"];
/** …and refuses these (the last is a well-formed address longer than 254 characters). */
const INVALID_EMAILS = [
  'not-an-email',
  '',
  'a@b',
  'ada@localhost',
  '.a@example.com',
  'a..b@example.com',
  'ada@example.com ',
  'ünï@example.com',
  `${'a'.repeat(EMAIL_MAX - 'x@example.com'.length + 2)}@example.com`,
];

// ---------------------------------------------------------------------------------------
// The model: decisions.md's formulas, with our rounding (once, half up, in minor units).
// ---------------------------------------------------------------------------------------

const factorOf = (currency: Currency) => (currency === 'JPY' ? 1 : 100);
const toMinor = (major: number, currency: Currency) => Math.round(Number((major * factorOf(currency)).toPrecision(12)));

type Interval = 'month' | 'year';

function forInterval(
  monthly: number,
  interval: Interval,
  project: Pick<ProjectFx, 'annualDiscount' | 'annualDiscountEnabled'>,
): number {
  if (interval === 'month') return monthly;
  return project.annualDiscountEnabled ? monthly * 12 * (1 - project.annualDiscount) : monthly * 12;
}

const planMonthly = (p: PlanFx, seats: number) =>
  p.isPerUserPricing ? p.basePrice * (1 + (seats - 1) * p.perUserMultiplier) : p.basePrice;

const featureMonthly = (f: FeatureFx, quantity: number | null) =>
  f.isCountable ? f.basePrice + f.countPrice * (quantity ?? 0) : f.basePrice;

const isPositiveId = (v: unknown) =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= Number.MAX_SAFE_INTEGER;
const isShareIdField = (v: unknown) => typeof v === 'string' && v.length >= 1 && v.length <= SHARE_ID_FIELD_MAX;
const isIntervalField = (v: unknown) => v === undefined || v === 'month' || v === 'year';
const isEmailField = (v: unknown) => v === undefined || (typeof v === 'string' && VALID_EMAILS.includes(v));
const isSeatsField = (v: unknown) =>
  v === undefined || (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= SEATS_MAX);
const isQuantityField = (v: unknown) =>
  v === undefined ||
  (typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= QUANTITY_MAX && (v === 0 || v >= SMALLEST_POSITIVE));
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What Stripe must receive for a purchase (form values are strings on the wire). */
interface Purchase {
  project: ProjectFx;
  interval: Interval;
  amount: number;
  productName: string;
  trialDays: number;
  metadata: Record<string, string>;
  customerEmail: string | undefined;
  /** Custom plans: the chosen list, as it must read back from featureDetails_*. */
  details?: Array<{ id: number; name: string; quantity: number | null; price: number }>;
}

type Outcome =
  | { status: 200; purchase: Purchase }
  | { status: 400 | 404 | 409; code: 'validation_error' | 'not_found' | 'payments_not_configured' | 'conflict' };

const refused = (status: 400 | 404 | 409): Outcome => ({
  status,
  code: status === 400 ? 'validation_error' : status === 404 ? 'not_found' : 'payments_not_configured',
});

interface Fixtures {
  projects: ProjectFx[];
  byLabel: Map<string, ProjectFx>;
  byShareId: Map<string, ProjectFx>;
  allPlans: PlanFx[];
  allFeatures: FeatureFx[];
}
let fx: Fixtures;

/** The project a checkout may sell through: active, known; else undefined (404). */
const sellingProject = (shareId: string) => {
  const project = fx.byShareId.get(shareId);
  return project && project.state !== 'inactive' ? project : undefined;
};

/** Amount checks and the payment account, the last steps before Stripe. */
function finish(project: ProjectFx, purchase: Omit<Purchase, 'amount' | 'project'> & { price: number }): Outcome {
  const amount = toMinor(purchase.price, project.currency);
  // Nothing to pay (rounded half up to the minor unit) is refused like a free plan.
  if (amount === 0 || amount > STRIPE_AMOUNT_MAX) return refused(400);
  if (project.state === 'no-key' || project.state === 'no-urls') return refused(409);
  const { price: _price, ...rest } = purchase;
  return { status: 200, purchase: { ...rest, project, amount } };
}

/** The model reads what the server reads: the body after JSON (so -0 is 0, undefined is absent). */
const overJson = (body: unknown): unknown => JSON.parse(j(body));

function planModel(sent: unknown): Outcome {
  const body = overJson(sent);
  if (!isObject(body)) return refused(400);
  const { shareId, planId, billingInterval, seats, customerEmail } = body;
  if (
    !isShareIdField(shareId) ||
    !isPositiveId(planId) ||
    !isIntervalField(billingInterval) ||
    !isSeatsField(seats) ||
    !isEmailField(customerEmail)
  ) {
    return refused(400);
  }
  const project = sellingProject(shareId as string);
  if (!project) return refused(404);
  const chosen = project.plans.find((p) => p.id === planId && p.isVisible);
  if (!chosen) return refused(404);
  if (chosen.isFree) return refused(400);
  if (seats !== undefined && seats !== 1 && !chosen.isPerUserPricing) return refused(400);
  const seatCount = (seats as number | undefined) ?? 1;
  const interval = (billingInterval as Interval | undefined) ?? 'month';
  return finish(project, {
    interval,
    price: forInterval(planMonthly(chosen, seatCount), interval, project),
    productName: chosen.name,
    trialDays: chosen.freemiumDay,
    metadata: {
      planId: String(chosen.id),
      planVersion: String(chosen.version),
      projectId: String(project.id),
      ...(chosen.isPerUserPricing ? { seats: String(seatCount) } : {}),
    },
    customerEmail: customerEmail as string | undefined,
  });
}

function customModel(sent: unknown): Outcome {
  const body = overJson(sent);
  if (!isObject(body)) return refused(400);
  const { shareId, billingInterval, features, customerEmail } = body;
  if (!isShareIdField(shareId) || !isIntervalField(billingInterval) || !isEmailField(customerEmail)) {
    return refused(400);
  }
  if (!Array.isArray(features) || features.length < 1 || features.length > FEATURES_MAX) return refused(400);
  for (const choice of features) {
    if (!isObject(choice) || !isPositiveId(choice.featureId) || !isQuantityField(choice.quantity)) {
      return refused(400);
    }
  }
  const project = sellingProject(shareId as string);
  if (!project) return refused(404);
  const interval = (billingInterval as Interval | undefined) ?? 'month';
  const seen = new Set<number>();
  const chosen: Array<{ feature: FeatureFx; quantity: number | null }> = [];
  for (const choice of features as Array<{ featureId: number; quantity?: number }>) {
    if (seen.has(choice.featureId)) return refused(400);
    seen.add(choice.featureId);
    const found = project.features.find((f) => f.id === choice.featureId);
    if (!found) return refused(404);
    if (choice.quantity !== undefined && !found.isCountable) return refused(400);
    chosen.push({ feature: found, quantity: found.isCountable ? (choice.quantity ?? found.usageCount) : null });
  }
  const monthly = chosen.reduce((sum, { feature: f, quantity }) => sum + featureMonthly(f, quantity), 0);
  return finish(project, {
    interval,
    price: forInterval(monthly, interval, project),
    productName: CUSTOM_PLAN,
    trialDays: 0,
    metadata: { projectId: String(project.id) },
    customerEmail: customerEmail as string | undefined,
    details: chosen.map(({ feature: f, quantity }) => ({
      id: f.id,
      name: f.name,
      quantity,
      // Display prices per feature: float noise trimmed to 12 significant digits.
      price: Number(forInterval(featureMonthly(f, quantity), interval, project).toPrecision(12)),
    })),
  });
}

/** The parameters the fake Stripe must have recorded, form-decoded (every value a string). */
function expectedStripeBody(purchase: Purchase) {
  const { project } = purchase;
  return {
    mode: 'subscription',
    line_items: [
      {
        quantity: '1',
        price_data: {
          currency: project.currency.toLowerCase(),
          unit_amount: String(purchase.amount),
          recurring: { interval: purchase.interval },
          product_data: { name: purchase.productName },
        },
      },
    ],
    subscription_data: {
      metadata: purchase.metadata,
      ...(purchase.trialDays > 0 ? { trial_period_days: String(purchase.trialDays) } : {}),
    },
    metadata: purchase.metadata,
    success_url: project.expectedSuccessUrl,
    cancel_url: project.cancelUrl,
    ...(purchase.customerEmail ? { customer_email: purchase.customerEmail } : {}),
  };
}

/**
 * Our own reader of featureDetails_0…n: in numeric order, each value a complete JSON array of
 * whole entries on its own (null when one does not parse), the arrays concatenated.
 */
function splitDetails(metadata: Record<string, string>) {
  const rest: Record<string, string> = {};
  const parts: Array<[number, string]> = [];
  for (const [key, value] of Object.entries(metadata)) {
    const match = /^featureDetails_(0|[1-9][0-9]*)$/.exec(key);
    if (match) parts.push([Number(match[1]), value]);
    else rest[key] = value;
  }
  parts.sort((a, b) => a[0] - b[0]);
  const arrays = parts.map(([, value]) => {
    try {
      const parsed: unknown = JSON.parse(value);
      return Array.isArray(parsed) ? parsed : null;
    } catch {
      return null;
    }
  });
  return { rest, indexes: parts.map(([i]) => i), arrays };
}

// ---------------------------------------------------------------------------------------
// Wire level: bytes out, status + headers + body in.
// ---------------------------------------------------------------------------------------

interface Wire {
  method: 'GET' | 'POST';
  path: string;
  body?: string | Uint8Array;
  /** Default application/json when there is a body; null sends none. */
  contentType?: string | null;
  headers?: Record<string, string>;
}

const j = (value: unknown) => JSON.stringify(value);
/** A field as [key, raw JSON text of its value], so `__proto__` stays a key and `1e400` reaches the server. */
type Field = readonly [key: string, raw: string];
const objectText = (fields: readonly Field[]) => `{${fields.map(([key, raw]) => `${j(key)}:${raw}`).join(',')}}`;
const fieldsOf = (body: Record<string, unknown>): Field[] =>
  Object.entries(body)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => [key, j(value)]);

function preview(body: Wire['body']): string {
  if (body === undefined) return '(no body)';
  const text = typeof body === 'string' ? body : `bytes:${Buffer.from(body).toString('hex')}`;
  return JSON.stringify(text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text);
}

const describeWire = (wire: Wire) =>
  `${wire.method} ${wire.path.length > 300 ? `${wire.path.slice(0, 300)}…` : wire.path}` +
  ` content-type=${wire.contentType === undefined ? '(default)' : j(wire.contentType)}` +
  `${wire.headers ? ` headers=${j(wire.headers).slice(0, 300)}` : ''} body=${preview(wire.body)}`;

/** Attaches a short description for fast-check's counterexample report. */
function labelled<T extends object>(value: T, label: string): T {
  return Object.assign(value, { [fc.toStringMethod]: () => label });
}

/** decisions.md, Errors: the one error shape. */
const ErrorBody = z.strictObject({
  error: z.strictObject({
    code: z.string(),
    message: z.string().min(1),
    details: z.array(z.strictObject({ path: z.string(), message: z.string() })).optional(),
  }),
});
type ErrorBody = z.infer<typeof ErrorBody>;

/** The codes each status may carry on these endpoints. */
const CODES_BY_STATUS: Record<number, readonly string[]> = {
  400: ['validation_error'],
  404: ['not_found'],
  409: ['payments_not_configured', 'conflict'],
  413: ['payload_too_large'],
};

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const CheckoutView = z.strictObject({ sessionId: z.string().regex(/^cs_test_/), url: z.string() });

async function runProperty<Ts>(name: string, index: number, numRuns: number, property: fc.IAsyncProperty<Ts>) {
  const seed = BASE_SEED + index;
  const runs = Math.max(1, Math.round(numRuns * RUNS_FACTOR));
  console.info(`[payments-fuzz] ${name}: seed=${seed} numRuns=${runs} (FUZZ_SEED=${BASE_SEED})`);
  await fc.assert(property, { seed, numRuns: runs });
}

// ---------------------------------------------------------------------------------------

describe('fuzz: the payment endpoints', () => {
  // The rate limit is not in this model (tests/integration/rate-limit.test.ts covers it):
  // payment calls read a clock that moves 2 s at each reading, so none is refused.
  const server = useLocalServer({ clock: spacedClock() });
  const seenRequestIds = new Set<string>();
  let requestsSent = 0;
  let stripeCreates = 0;
  let stripeConflicts = 0;
  let api: ApiClient;
  let keyCounter = 0;
  /** Stripe idempotency as the model sees it: scoped key → what was sent and what came back. */
  const idempotency = new Map<string, { fingerprint: string; sessionId: string }>();
  /** Completed sessions a receipt may be read for. */
  const completed = new Map<string, { project: ProjectFx; purchase: Purchase }>();
  const openSessions = new Set<string>();

  async function send(wire: Wire): Promise<Answer> {
    const headers: Record<string, string> = { ...wire.headers };
    const body = typeof wire.body === 'string' ? utf8(wire.body) : wire.body;
    const contentType = wire.contentType === undefined ? (body ? 'application/json' : null) : wire.contentType;
    if (contentType !== null) headers['content-type'] = contentType;
    requestsSent++;
    return sendRaw(`${server.url}${wire.path}`, { method: wire.method, headers, body }, HANG_MS, () =>
      describeWire(wire),
    );
  }

  const where = (wire: Wire, answer: Answer) =>
    `${describeWire(wire)}\n→ ${answer.status} ${answer.text.slice(0, 600)}`;

  /** What every answer of these endpoints must be, whatever the request. */
  function checkAnswer(wire: Wire, answer: Answer): ErrorBody | undefined {
    const at = where(wire, answer);
    const requestId = answer.headers.get('x-request-id');
    expect(requestId, `x-request-id missing: ${at}`).toMatch(/\S/);
    expect(seenRequestIds.has(requestId as string), `x-request-id reused: ${at}`).toBe(false);
    seenRequestIds.add(requestId as string);
    expect(answer.headers.get('access-control-allow-origin'), `CORS: ${at}`).toBe('*');
    expect(answer.status, `never a 5xx: ${at}`).toBeLessThan(500);
    expect([200, 400, 404, 409, 413], at).toContain(answer.status);
    expect(answer.headers.get('content-type'), at).toMatch(/^application\/json/i);
    if (answer.status === 200) return undefined;
    const parsed = ErrorBody.safeParse(answer.json);
    expect(parsed.success, `error body shape: ${parsed.error?.message}\n${at}`).toBe(true);
    const error = parsed.data as ErrorBody;
    expect(CODES_BY_STATUS[answer.status], `code for the status: ${at}`).toContain(error.error.code);
    if (error.error.details) expect(error.error.code, `details only for validation: ${at}`).toBe('validation_error');
    expect(error.error.message.length, `message length: ${at}`).toBeLessThanOrEqual(1_000);
    return error;
  }

  /**
   * Sends a checkout and checks the answer against the model's outcome: on a refusal the
   * status and code, and that nothing reached Stripe; on a 200 exactly what reached Stripe.
   */
  async function expectCheckout(wire: Wire, outcome: Outcome, idempotencyKey?: string): Promise<Answer> {
    const before = fake.requests.length;
    const answer = await send(wire);
    const error = checkAnswer(wire, answer);
    const at = where(wire, answer);
    const reached = fake.requests.slice(before);
    if (outcome.status !== 200) {
      expect(answer.status, `status: ${at}`).toBe(outcome.status);
      expect(error?.error.code, at).toBe(outcome.code);
      if (outcome.code === 'conflict') {
        // Only Stripe knows the key was used for another purchase: one create, refused.
        expect(
          reached.map((r) => `${r.method} ${r.path}`),
          at,
        ).toEqual(['POST /v1/checkout/sessions']);
        stripeConflicts++;
      } else {
        expect(reached, `a refusal reached Stripe: ${at}`).toEqual([]);
      }
      return answer;
    }
    expect(answer.status, `status: ${at}`).toBe(200);
    const view = CheckoutView.safeParse(answer.json);
    expect(view.success, `checkout view: ${at}`).toBe(true);
    const { sessionId, url } = view.data as z.infer<typeof CheckoutView>;
    expect(url, at).toBe(`${fake.url}/pay/${sessionId}`);
    expect(answer.headers.get('cache-control'), at).toBe('no-store');

    // Exactly one create: the fake is healthy, so the SDK never retries.
    expect(
      reached.map((r) => `${r.method} ${r.path}`),
      at,
    ).toEqual(['POST /v1/checkout/sessions']);
    stripeCreates++;
    const sent = reached[0] as RecordedRequest;
    const { purchase } = outcome;
    expect(sent.apiKey, at).toBe(purchase.project.key);
    if (idempotencyKey !== undefined) {
      expect(sent.idempotencyKey, at).toBe(`project-${purchase.project.id}:${idempotencyKey}`);
    }
    const body = sent.body as { metadata: Record<string, string>; subscription_data: { metadata: unknown } };
    if (purchase.details) {
      const { rest, indexes, arrays } = splitDetails(body.metadata);
      expect(indexes, `featureDetails_0…n: ${at}`).toEqual(indexes.map((_, i) => i));
      for (const value of Object.values(body.metadata)) expect([...value].length, at).toBeLessThanOrEqual(500);
      expect(arrays, `every featureDetails value a JSON array on its own: ${at}`).not.toContain(null);
      expect(arrays.flat(), `featureDetails: ${at}`).toEqual(purchase.details);
      expect(rest, at).toEqual(purchase.metadata);
      expect(body.subscription_data.metadata, at).toEqual(body.metadata);
      expect({ ...body, metadata: rest, subscription_data: { ...body.subscription_data, metadata: rest } }, at).toEqual(
        expectedStripeBody(purchase),
      );
    } else {
      expect(body, `what reached Stripe: ${at}`).toEqual(expectedStripeBody(purchase));
    }
    return answer;
  }

  afterAll(async () => {
    await fake.close();
  });

  beforeAll(async () => {
    const owner = await newOwner('payments-fuzz');
    api = server.client(owner.writeKey);
    const projects: ProjectFx[] = [];
    for (const spec of SPECS) {
      const key = spec.state === 'no-key' ? undefined : `sk_test_${randomBytes(20).toString('hex')}`;
      const created = await makeProject(api, {
        currency: spec.currency,
        annualDiscount: spec.annualDiscount,
        annualDiscountEnabled: spec.annualDiscountEnabled,
        ...(spec.state === 'inactive' ? { isActive: false } : {}),
        ...(key ? { paymentSecretKey: key } : {}),
        ...(spec.successUrl ? { checkoutTestSuccessUrl: spec.successUrl } : {}),
        ...(spec.cancelUrl ? { checkoutTestCancelUrl: spec.cancelUrl } : {}),
        // Live URLs that must never be used with a test key.
        checkoutSuccessUrl: 'https://live.example/thanks',
        checkoutCancelUrl: 'https://live.example/pricing',
      });
      const plans = await Promise.all(
        spec.plans.map(async (p) => {
          const made = await makePlan(api, created.slug, { ...p });
          return { ...p, id: made.id as number, version: made.version as number };
        }),
      );
      const features = await Promise.all(
        spec.features.map(async (f) => ({ ...f, id: (await makeFeature(api, created.slug, { ...f })).id as number })),
      );
      projects.push({ ...spec, id: created.id, shareId: created.shareId, key, plans, features });
    }
    fx = {
      projects,
      byLabel: new Map(projects.map((p) => [p.label, p])),
      byShareId: new Map(projects.map((p) => [p.shareId, p])),
      allPlans: projects.flatMap((p) => p.plans),
      allFeatures: projects.flatMap((p) => p.features),
    };
  });

  const project = (label: string) => {
    const found = fx.byLabel.get(label);
    if (!found) throw new Error(`no fixture project ${label}`);
    return found;
  };

  // -------------------------------------------------------------------------------------
  // Generators of plausible checkout bodies: mostly valid, sometimes not, for every project.
  // -------------------------------------------------------------------------------------

  /** How often each property saw each answer: printed at the end, to see the generators do their job. */
  const tally = new Map<string, number>();
  const count = (name: string, answer: Answer, json = answer.json as ErrorBody | undefined) => {
    const key = `${name} ${answer.status}${answer.status === 200 ? '' : ` ${json?.error?.code}`}`;
    tally.set(key, (tally.get(key) ?? 0) + 1);
  };

  const shareIdFor = (label: string) =>
    label === 'unknown' ? fc.constantFrom(...UNKNOWN_SHARE_IDS) : fc.constant(project(label).shareId);

  /** The projects that can sell come up most, the others (and no project) now and then. */
  const labelArb = () =>
    fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('usd', 'eur', 'jpy') },
      { weight: 2, arbitrary: fc.constantFrom('no-key', 'no-urls', 'inactive', 'unknown') },
    );

  const intervalArb = fc.oneof(
    { weight: 14, arbitrary: fc.constantFrom<unknown>('month', 'year') },
    { weight: 1, arbitrary: fc.constantFrom<unknown>('week', 'Year', 'annual', '', null, 12) },
  );
  const emailArb = fc.oneof(
    { weight: 10, arbitrary: fc.constantFrom<unknown>(...VALID_EMAILS) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(...INVALID_EMAILS, null, 42) },
  );
  const badIds = [0, -1, 1.5, '1', null, 2 ** 53, true];
  const strayId = (foreign: number[]) =>
    fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom<unknown>(...foreign, 999_999_999) },
      { weight: 1, arbitrary: fc.constantFrom<unknown>(...badIds) },
    );

  /** Seats as a visitor would send them: mostly sensible for the plan, sometimes not. */
  const seatsFor = (picked: PlanFx | undefined) =>
    picked?.isPerUserPricing
      ? fc.oneof(
          { weight: 2, arbitrary: fc.constant<unknown>(undefined) },
          { weight: 1, arbitrary: fc.constant<unknown>(1) },
          { weight: 5, arbitrary: fc.integer({ min: 1, max: 25 }) },
          { weight: 2, arbitrary: fc.integer({ min: 1, max: SEATS_MAX }) },
          { weight: 1, arbitrary: fc.constantFrom<unknown>(0, -1, 2.5, SEATS_MAX + 1, '2', null) },
        )
      : fc.oneof(
          { weight: 12, arbitrary: fc.constant<unknown>(undefined) },
          { weight: 3, arbitrary: fc.constant<unknown>(1) },
          { weight: 1, arbitrary: fc.integer({ min: 2, max: 25 }) },
          { weight: 1, arbitrary: fc.constantFrom<unknown>(0, 2.5, '1', null) },
        );

  /** A plan checkout body (without noise): mostly one a widget would send, sometimes not. */
  const planBodyArb = () =>
    labelArb().chain((label) => {
      const own = label === 'unknown' ? fx.allPlans : project(label).plans;
      const foreign = fx.allPlans.filter((p) => !own.includes(p)).map((p) => p.id);
      const pick = fc.oneof(
        { weight: 14, arbitrary: fc.constantFrom(...own).map((p) => ({ planId: p.id as unknown, picked: p })) },
        { weight: 1, arbitrary: strayId(foreign).map((planId) => ({ planId, picked: undefined })) },
      );
      return pick.chain(({ planId, picked }) =>
        fc
          .record(
            {
              shareId: shareIdFor(label),
              billingInterval: intervalArb,
              seats: seatsFor(picked),
              customerEmail: emailArb,
            },
            { requiredKeys: ['shareId', 'seats'] },
          )
          .map(({ seats, ...rest }) => ({ ...rest, planId, ...(seats === undefined ? {} : { seats }) })),
      );
    });

  const quantityArb = fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 0, max: 5_000 }) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 1_000_000 }).map((n) => n / 100) },
    { weight: 1, arbitrary: fc.constantFrom(1e6, 1e9, QUANTITY_MAX, 0.5, 1e-9, -0) },
  );
  const badQuantities = [-1, '5', null, QUANTITY_MAX * 10, 1e-10, true, [3]];

  /** One chosen feature: a quantity mostly only where the feature counts. */
  const choiceFor = (f: FeatureFx): fc.Arbitrary<Record<string, unknown>> =>
    f.isCountable
      ? fc.oneof(
          { weight: 2, arbitrary: fc.constant({ featureId: f.id }) },
          { weight: 5, arbitrary: quantityArb.map((quantity) => ({ featureId: f.id, quantity })) },
          {
            weight: 1,
            arbitrary: fc.constantFrom(...badQuantities).map((quantity) => ({ featureId: f.id, quantity })),
          },
        )
      : fc.oneof(
          { weight: 12, arbitrary: fc.constant({ featureId: f.id }) },
          { weight: 1, arbitrary: quantityArb.map((quantity) => ({ featureId: f.id, quantity })) },
        );

  /** A custom checkout body: a subset of the project's features, sometimes with a stray or a repeat. */
  const customBodyArb = () =>
    labelArb().chain((label) => {
      const own = label === 'unknown' ? fx.allFeatures : project(label).features;
      const foreign = fx.allFeatures.filter((f) => !own.includes(f)).map((f) => f.id);
      const chosen = fc
        .shuffledSubarray(own, { minLength: 1, maxLength: Math.min(6, own.length) })
        .chain((features) => fc.tuple(...features.map(choiceFor)));
      const stray = fc.oneof(
        strayId(foreign).map((featureId) => ({ featureId })),
        fc.constantFrom(...own).map((f) => ({ featureId: f.id })),
      );
      const features = fc.oneof(
        { weight: 12, arbitrary: chosen as fc.Arbitrary<unknown[]> },
        {
          weight: 2,
          arbitrary: fc
            .tuple(chosen, stray, fc.nat())
            .map(([list, extra, at]) => list.toSpliced(at % (list.length + 1), 0, extra)),
        },
        { weight: 1, arbitrary: fc.constantFrom<unknown>([], null, {}, 'all') },
      );
      return fc.record(
        { shareId: shareIdFor(label), billingInterval: intervalArb, features, customerEmail: emailArb },
        { requiredKeys: ['shareId', 'features'] },
      );
    });

  /** A unique, valid key, sent only when the case asks for one. */
  const freshKey = () => `fuzz-${++keyCounter}-${randomBytes(4).toString('hex')}`;

  test('the model agrees with the worked examples of decisions.md and payments.test.ts', () => {
    const discounted = { annualDiscount: 0.2, annualDiscountEnabled: true };
    const team = { basePrice: 10, isPerUserPricing: true, perUserMultiplier: 0.5 } as PlanFx;
    // 19.99 × 12 × 0.8 = 191.904 → 19190 cents, rounded once, half up.
    expect(toMinor(forInterval(19.99, 'year', discounted), 'USD')).toBe(19190);
    expect(toMinor(forInterval(29, 'year', discounted), 'USD')).toBe(27840);
    expect(toMinor(forInterval(29, 'year', { ...discounted, annualDiscountEnabled: false }), 'USD')).toBe(34800);
    expect(toMinor(planMonthly(team, 5), 'USD')).toBe(3000);
    expect(toMinor(forInterval(planMonthly(team, 5), 'year', discounted), 'USD')).toBe(28800);
    // JPY has no minor unit: 1499 × 12 × 0.85 = 15289.8 → 15290.
    expect(toMinor(forInterval(1499, 'year', { annualDiscount: 0.15, annualDiscountEnabled: true }), 'JPY')).toBe(
      15290,
    );
    // (5 + 0.01 × 5000) + 20 + (0 + 4 × 3) = 87 a month; 835.20 a discounted year.
    expect(toMinor(forInterval(5 + 0.01 * 5000 + 20 + 4 * 3, 'year', discounted), 'USD')).toBe(83520);
    // Binary noise does not decide a half: 1.005 × 100 is 100.4999… in floating point.
    expect(toMinor(1.005, 'EUR')).toBe(101);
    // What rounds to 0 is refused (nothing to pay): 0.004 USD and ¥0.4, but not 0.005 USD or ¥0.5.
    expect([toMinor(0.004, 'USD'), toMinor(0.005, 'USD'), toMinor(0.4, 'JPY'), toMinor(0.5, 'JPY')]).toEqual([
      0, 1, 0, 1,
    ]);
  });

  const PLAN_PATH = '/api/payments/checkout';
  const CUSTOM_PATH = '/api/payments/checkout/custom';

  test('property 1: plan checkouts are priced and refused exactly as the model says', {
    timeout: 60_000,
  }, async () => {
    const cases = fc.tuple(planBodyArb(), fc.boolean());
    await runProperty(
      'plan checkout model',
      1,
      60,
      fc.asyncProperty(cases, async ([body, withKey]) => {
        const key = withKey ? freshKey() : undefined;
        const wire: Wire = {
          method: 'POST',
          path: PLAN_PATH,
          body: j(body),
          ...(key ? { headers: { 'idempotency-key': key } } : {}),
        };
        count('plan', await expectCheckout(wire, planModel(body), key));
      }),
    );
  });

  test('property 2: custom checkouts are priced, listed and refused exactly as the model says', {
    timeout: 60_000,
  }, async () => {
    await runProperty(
      'custom checkout model',
      2,
      40,
      fc.asyncProperty(customBodyArb(), async (body) => {
        count('custom', await expectCheckout({ method: 'POST', path: CUSTOM_PATH, body: j(body) }, customModel(body)));
      }),
    );
  });

  // -------------------------------------------------------------------------------------
  // Property 3: hostile requests of every kind, each with what it must get.
  // -------------------------------------------------------------------------------------

  interface HostileCase {
    wire: Wire;
    /** What it must get: a model outcome (checked in full), a status, the idempotency model's answer, or a receipt. */
    expect:
      | { kind: 'checkout'; outcome: Outcome }
      | { kind: 'status'; status: 400 | 413; detailField?: string }
      | { kind: 'idempotent'; project: ProjectFx; purchase: Outcome; key: string }
      | { kind: 'receipt'; status: 200 | 400 | 404 | 409; session?: { project: ProjectFx; purchase: Purchase } };
  }

  const DEEP = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;

  /** Values each field must refuse, as raw JSON text. */
  const BAD: Record<string, string[]> = {
    shareId: ['1', 'null', 'true', '[]', '{}', '""', j('s'.repeat(SHARE_ID_FIELD_MAX + 1)), DEEP],
    planId: [
      ...['"1"', '0', '-1', '-0', '1.5', '1e400', '-1e400', '1e-400', 'null', '[1]', '{}', '"NaN"', '"Infinity"'],
      ...['9007199254740992', '99999999999999999999', 'true', DEEP],
    ],
    billingInterval: ['"week"', '"Month"', '"YEAR"', '""', 'null', '1', '["month"]', '{"month":true}'],
    seats: ['0', '-1', '-0', '1.5', String(SEATS_MAX + 1), '1e400', '"2"', 'null', '"NaN"', 'true', '[2]', '{}'],
    customerEmail: [...INVALID_EMAILS.map(j), 'null', '1', '["ada@example.com"]', '{}'],
    features: [
      ...['null', '{}', '"1,2"', '1', '[]', '[null]', '[1]', '[[1]]', '[{}]', '[{"quantity":1}]'],
      ...['[{"featureId":"1"}]', '[{"featureId":1.5}]', '[{"featureId":0}]', '[{"featureId":-1}]', DEEP],
      ...['[{"featureId":1e400}]', '[{"featureId":null}]'],
    ],
  };

  function hostileArb(): fc.Arbitrary<HostileCase> {
    const usd = project('usd');
    const team = usd.plans.find((p) => p.name === 'Team') as PlanFx;
    const [events, , sso] = usd.features as [FeatureFx, FeatureFx, FeatureFx];
    const planBase = {
      shareId: usd.shareId,
      planId: team.id,
      billingInterval: 'year',
      seats: 3,
      customerEmail: 'ada@example.com',
    };
    const customBase = {
      shareId: usd.shareId,
      billingInterval: 'year',
      features: [{ featureId: events.id, quantity: 10 }, { featureId: sso.id }],
      customerEmail: 'ada@example.com',
    };
    const routes = [
      { path: PLAN_PATH, base: planBase as Record<string, unknown>, model: planModel },
      { path: CUSTOM_PATH, base: customBase as Record<string, unknown>, model: customModel },
    ];
    const route = fc.constantFrom(...routes);
    const status = (wire: Wire, s: 400 | 413, detailField?: string): HostileCase => ({
      wire,
      expect: { kind: 'status', status: s, ...(detailField ? { detailField } : {}) },
    });
    const post = (path: string, body: string | Uint8Array, extra: Partial<Wire> = {}): Wire => ({
      method: 'POST',
      path,
      body,
      ...extra,
    });

    // (a) JSON that is not an object, or an object with none of the fields.
    const notAnObject = fc
      .tuple(
        route,
        fc.oneof(
          fc.jsonValue({ maxDepth: 3 }).filter((v) => !isObject(v)),
          fc
            .dictionary(
              fc.string({ maxLength: 8 }).filter((k) => !['shareId', 'planId', 'features'].includes(k)),
              fc.jsonValue({ maxDepth: 2 }),
              { maxKeys: 4 },
            )
            .map((v) => v as unknown),
          fc.constantFrom<unknown>(null, [planBase], j(planBase), 0, -0, true),
        ),
      )
      .map(([r, value]) => labelled(status(post(r.path, j(value)), 400), `not an object ${j(value)}`));

    // (b) A valid body with one field made bad (or a required one left out): 400 naming it.
    const poisoned = route.chain((r) =>
      fc
        .constantFrom(
          ...Object.keys(r.base).flatMap((key) => (BAD[key] ?? []).map((raw) => [key, raw] as const)),
          ...['shareId', r.path === PLAN_PATH ? 'planId' : 'features'].map((key) => [key, undefined] as const),
        )
        .map(([key, raw]) => {
          const fields = fieldsOf(r.base).filter(([k]) => k !== key);
          const text = objectText(raw === undefined ? fields : [...fields, [key, raw]]);
          return labelled(status(post(r.path, text), 400, key), `${r.path} ${key}=${raw ?? '(missing)'}`);
        }),
    );

    // Domain refusals of custom bodies that name a field.
    const customRefusals = fc
      .constantFrom(
        [{ featureId: sso.id }, { featureId: sso.id }],
        [{ featureId: events.id }, { featureId: sso.id, quantity: 3 }],
        [{ featureId: events.id, quantity: -1 }],
        Array.from({ length: FEATURES_MAX + 1 }, (_, i) => ({ featureId: i + 1 })),
      )
      .map((features) =>
        labelled(
          status(post(CUSTOM_PATH, j({ ...customBase, features })), 400, 'features'),
          `custom features ${j(features).slice(0, 80)}`,
        ),
      );

    // (c) Noise around a plausible body: bodies are strict (decisions.md, "Errors"), so any
    // field the route does not know, a hostile key included, is a 400 that reaches nothing.
    const noiseKey = fc.constantFrom(
      ...['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'then', 'toJSON'],
      ...['successUrl', 'success_url', 'cancelUrl', 'amount', 'unit_amount', 'price', 'currency', 'metadata'],
      ...['trialDays', 'freemiumDay', 'mode', 'projectId', 'isFree', 'basePrice', 'annualDiscount', 'quantity'],
    );
    const noiseValue = fc.oneof(
      fc.constantFrom(
        ...['{"seats":5}', '{"planId":1}', '{"billingInterval":"year"}', '{"shareId":"x"}', '{"polluted":1}'],
        ...[j('https://evil.example/'), '{"amount":1}', '{"prototype":{"seats":7}}', 'null', '1e400', '-0'],
        ...['{"features":[]}', '{"customerEmail":"x"}', DEEP],
      ),
      fc.jsonValue({ maxDepth: 2 }).map(j),
    );
    const noisy = fc
      .tuple(
        fc.oneof(
          planBodyArb().map((b) => ({ path: PLAN_PATH, body: b, model: planModel })),
          customBodyArb().map((b) => ({ path: CUSTOM_PATH, body: b, model: customModel })),
        ),
        fc.array(fc.tuple(noiseKey, noiseValue), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
      )
      .map(([{ path, body }, noise, noiseFirst]) => {
        const fields = fieldsOf(body);
        const text = objectText(noiseFirst ? [...noise, ...fields] : [...fields, ...noise]);
        return labelled<HostileCase>(
          { wire: post(path, text), expect: { kind: 'checkout', outcome: { status: 400, code: 'validation_error' } } },
          `noisy ${path} ${text.slice(0, 200)}`,
        );
      });

    // (d) Text that is not JSON.
    const baseTexts = routes.map((r) => j(r.base));
    const malformed = fc
      .tuple(
        route,
        fc.oneof(
          fc
            .constantFrom(...baseTexts)
            .chain((t) => fc.integer({ min: 1, max: t.length - 1 }).map((end) => t.slice(0, end))),
          fc.constantFrom(
            ...['{"shareId":"x",}', '{shareId:"x"}', "{'shareId':'x'}", '{"planId":NaN}', '{"seats":Infinity}'],
            ...['{"planId":0x10}', '{"planId":01}', '{"planId":+1}', '{"planId":.5}', '{"seats":1.}', 'NaN'],
            ...['{"a":1} {"b":2}', '{"a":1}garbage', '"unterminated', 'nul', '<xml/>', 'shareId=x&planId=1'],
            ...['\ufeff{}', '\u00a0', '{"a":"\\x41"}', '{"a":"\\ud800', '{"a":1}}', '{"a":'.repeat(3_000)],
          ),
          fc
            .string({ unit: 'binary', minLength: 1, maxLength: 40 })
            .map((t) => new TextDecoder().decode(utf8(t)))
            .filter((t) => !/^[ \t\n\r]*$/.test(t) && !parses(t)),
          fc.constantFrom('', ' ', '\r\n\t '),
        ),
      )
      .map(([r, text]) => labelled(status(post(r.path, text), 400), `malformed ${r.path} ${preview(text)}`));
    const invalidUtf8 = fc
      .tuple(
        route,
        fc.constantFrom(
          Uint8Array.from([0x7b, 0xff, 0xfe, 0x7d]),
          Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0xc0, 0x80, 0x7d]),
          Uint8Array.from([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
        ),
      )
      .map(([r, bytes]) => labelled(status(post(r.path, bytes), 400), `invalid UTF-8 ${r.path} ${preview(bytes)}`));

    // (e) Content types: JSON's own (any case, +json suffixes, parameters) are read, others refused.
    const jsonTypes = [
      'application/json',
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'Application/Json;charset=UTF-8',
      'application/merge-patch+json',
      'application/vnd.api+json',
    ];
    const otherTypes = [
      ...['text/plain', 'text/json', 'text/html', 'application/jsonx', 'application/json-seq', 'json'],
      ...['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', '*/*'],
      ...['application/octet-stream', 'application/json, text/plain', 'application/javascript', ''],
    ];
    const contentTypes = fc.oneof(
      fc
        .tuple(
          fc.oneof(
            planBodyArb().map((b) => ({ path: PLAN_PATH, body: b, model: planModel })),
            customBodyArb().map((b) => ({ path: CUSTOM_PATH, body: b, model: customModel })),
          ),
          fc.constantFrom(...jsonTypes),
        )
        .map(([{ path, body, model }, contentType]) =>
          labelled<HostileCase>(
            { wire: post(path, j(body), { contentType }), expect: { kind: 'checkout', outcome: model(body) } },
            `${contentType} ${path} ${j(body)}`,
          ),
        ),
      fc
        .tuple(route, fc.constantFrom<string | null>(...otherTypes, null))
        .map(([r, contentType]) =>
          labelled(status(post(r.path, j(r.base), { contentType }), 400), `${j(contentType)} ${r.path}`),
        ),
    );

    // (f) Size: over 256 KiB (in bytes) is 413 whatever the body; exactly 256 KiB is read.
    const padded = (r: (typeof routes)[number], bytes: number, padChar: string) => {
      const head = objectText([...fieldsOf(r.base), ['pad', '""']]);
      const missing = bytes - utf8(head).length;
      const unit = utf8(padChar).length;
      const pad = padChar.repeat(Math.floor(missing / unit)) + 'x'.repeat(missing % unit);
      return objectText([...fieldsOf(r.base), ['pad', j(pad)]]);
    };
    const sizes = fc.oneof(
      fc
        .tuple(route, fc.constantFrom('x', '€'), fc.constantFrom(1, 2, 10 * KIB))
        .map(([r, padChar, over]) =>
          labelled(status(post(r.path, padded(r, BODY_LIMIT + over, padChar)), 413), `${r.path} limit+${over}`),
        ),
      fc
        .tuple(route, fc.constantFrom(`{${'x'.repeat(300 * KIB)}`, j('a'.repeat(300 * KIB))))
        .map(([r, text]) => labelled(status(post(r.path, text), 413), `${r.path} 300 KiB of junk`)),
      fc
        .tuple(route, fc.constantFrom<string | null>('text/plain', null))
        .map(([r, contentType]) =>
          labelled(
            status(post(r.path, padded(r, BODY_LIMIT + 1, 'x'), { contentType }), 413),
            `${r.path} limit+1 as ${contentType}`,
          ),
        ),
      route.map((r) => {
        // Bodies are strict, so the padding is JSON's own whitespace: a known body, exactly 256 KiB.
        const text = objectText(fieldsOf(r.base));
        const spaced = `${text.slice(0, -1)}${' '.repeat(BODY_LIMIT - utf8(text).length)}}`;
        return labelled<HostileCase>(
          { wire: post(r.path, spaced), expect: { kind: 'checkout', outcome: r.model(r.base) } },
          `${r.path} exactly 256 KiB`,
        );
      }),
    );

    // (g) Idempotency-Key headers: any byte string a client can send; a small pool collides.
    const headerChar = fc.oneof(
      { weight: 20, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
      { weight: 1, arbitrary: fc.constant(0x09) },
      { weight: 2, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
    );
    const headerValue = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('order-1', 'order-2', 'ORDER-1', 'a', '~!@#$%^&*()_+{}|:<>?') },
      {
        weight: 3,
        arbitrary: fc.array(headerChar, { minLength: 0, maxLength: 30 }).map((codes) => String.fromCharCode(...codes)),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          'k'.repeat(IDEMPOTENCY_KEY_MAX),
          'k'.repeat(IDEMPOTENCY_KEY_MAX + 1),
          ` ${'k'.repeat(IDEMPOTENCY_KEY_MAX)}\t`,
          'k'.repeat(1_000),
          '',
          ' ',
          'two words',
          'café',
        ),
      },
    );
    // Plans that sell: not free, not above Stripe's largest amount, not priced 0 (nothing to pay).
    const visible = usd.plans.filter((p) => p.isVisible && !p.isFree && p.name !== 'Big' && p.basePrice > 0);
    const idempotent = fc
      .tuple(headerValue, fc.constantFrom(...visible.map((p) => p.id)), fc.constantFrom('month', 'year'), fc.boolean())
      .map(([key, planId, billingInterval, withEmail]) => {
        const body = {
          shareId: usd.shareId,
          planId,
          billingInterval,
          ...(withEmail ? { customerEmail: 'ada@example.com' } : {}),
        };
        return labelled<HostileCase>(
          {
            wire: post(PLAN_PATH, j(body), { headers: { 'idempotency-key': key } }),
            expect: { kind: 'idempotent', project: usd, purchase: planModel(body), key },
          },
          `Idempotency-Key ${j(key).slice(0, 60)} ${j(body)}`,
        );
      });

    // (h) Receipt queries: parameters missing, empty, doubled, odd or real, in any order.
    const sessionIds = [...completed.keys(), ...openSessions];
    const paramValue = (realValues: string[]) =>
      fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...realValues) },
        { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
        { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9_]{1,40}$/) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            ...['', ' ', 'cs_test_doesnotexist', '../../v1/customers', 'cs_test_x/../../x', 'x'.repeat(256)],
            ...['null', 'undefined', '%', '😀', 'a,b', 'cs_test_a?expand[]=x'],
          ),
        },
      );
    const encoding = fc.constantFrom<'encode' | 'raw'>('encode', 'encode', 'raw');
    const asParam = (name: string, value: string, how: 'encode' | 'raw') =>
      `${name}=${how === 'encode' ? encodeURIComponent(value) : value.replace(/[#&]/g, '')}`;
    const shareIds = [...fx.projects.map((p) => p.shareId), ...UNKNOWN_SHARE_IDS];
    const completedPairs = [...completed.entries()].map(([id, c]) => [id, c.project.shareId] as [string, string]);
    const pairs = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...completedPairs) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...sessionIds), fc.constant(project('no-key').shareId)) },
      { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...sessionIds), fc.constantFrom(...shareIds)) },
      { weight: 4, arbitrary: fc.tuple(paramValue(sessionIds), paramValue(shareIds)) },
    );
    /** How often a parameter is given: mostly once, sometimes not at all or twice. */
    const times = fc.oneof(
      { weight: 8, arbitrary: fc.constant(1) },
      { weight: 1, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.constant(2) },
    );
    const extraParam = fc.oneof(
      fc.constantFrom(
        ...['sessionId=x', 'shareid=x', 'session_id', 'shareId', '&', '=', '%', 'a[b]=c', 'expand[]=x'],
        ...['__proto__=x', 'constructor=x', 'toString=x', 'hasOwnProperty=1', 'session_id[]=x'],
      ),
      fc
        .tuple(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }))
        .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`),
    );
    const receipts = fc
      .tuple(
        pairs,
        fc.tuple(times, times, encoding, encoding, paramValue(sessionIds)),
        fc.array(extraParam, { maxLength: 2 }),
        fc.nat(),
      )
      .map(([[sessionId, shareId], [nSession, nShare, howSession, howShare, other], extra, order]) => {
        const sessions = Array.from({ length: nSession }, (_, i) =>
          asParam('session_id', i === 0 ? sessionId : other, howSession),
        );
        const shares = Array.from({ length: nShare }, () => asParam('shareId', shareId, howShare));
        const parts = [...sessions, ...shares, ...extra];
        // A rotation, so the order of parameters varies too.
        const rotated = parts.map((_, i) => parts[(i + order) % parts.length] as string);
        const query = rotated.join('&');
        const path = `/api/payments/receipt${query || order % 2 ? `?${query}` : ''}`;
        return labelled<HostileCase>(
          { wire: { method: 'GET', path }, expect: receiptModel(query) },
          `GET ${path.slice(0, 200)}`,
        );
      });

    return fc.oneof(
      { weight: 2, arbitrary: notAnObject },
      { weight: 4, arbitrary: poisoned },
      { weight: 1, arbitrary: customRefusals },
      { weight: 3, arbitrary: noisy },
      { weight: 3, arbitrary: fc.oneof(malformed, invalidUtf8) },
      { weight: 2, arbitrary: contentTypes },
      { weight: 1, arbitrary: sizes },
      { weight: 3, arbitrary: idempotent },
      { weight: 4, arbitrary: receipts },
    );
  }

  /** A receipt, as decisions.md says: 400 missing, 404 unknown or foreign, 409 no key, else the receipt. */
  function receiptModel(query: string): HostileCase['expect'] {
    // What API Gateway (and the local server) hand the handler: decoded, repeats joined by commas.
    const params = new Map<string, string>();
    for (const [name, value] of new URLSearchParams(query)) {
      params.set(name, params.has(name) ? `${params.get(name)},${value}` : value);
    }
    const sessionId = params.get('session_id');
    const shareId = params.get('shareId');
    if (!sessionId || !shareId) return { kind: 'receipt', status: 400 };
    // Receipts still work on an inactive project: the purchase happened.
    const owner = /^[A-Za-z0-9_-]{16,64}$/.test(shareId) ? fx.byShareId.get(shareId) : undefined;
    if (!owner) return { kind: 'receipt', status: 404 };
    if (!/^[A-Za-z0-9_]{1,255}$/.test(sessionId)) return { kind: 'receipt', status: 404 };
    if (owner.state === 'no-key') return { kind: 'receipt', status: 409 };
    const session = completed.get(sessionId);
    if (!session || session.project !== owner) return { kind: 'receipt', status: 404 };
    return { kind: 'receipt', status: 200, session };
  }

  async function runHostile(c: HostileCase): Promise<Answer> {
    const { wire } = c;
    const e = c.expect;
    if (e.kind === 'checkout') return expectCheckout(wire, e.outcome);
    if (e.kind === 'idempotent') {
      const header = wire.headers?.['idempotency-key'] ?? '';
      // Clients trim a header's surrounding whitespace; the rest must be printable ASCII, ≤ 200.
      const sentKey = header.replace(/^[ \t]+|[ \t]+$/g, '');
      if (!/^[\x21-\x7e]+$/.test(sentKey) || sentKey.length > IDEMPOTENCY_KEY_MAX) {
        return expectCheckout(wire, refused(400));
      }
      if (e.purchase.status !== 200) throw new Error('idempotent cases are built from valid bodies');
      const scoped = `${e.project.id}:${sentKey}`;
      const fingerprint = j(expectedStripeBody(e.purchase.purchase));
      const previous = idempotency.get(scoped);
      if (previous && previous.fingerprint !== fingerprint) {
        return expectCheckout(wire, { status: 409, code: 'conflict' });
      }
      const answer = await expectCheckout(wire, e.purchase, sentKey);
      const { sessionId } = answer.json as { sessionId: string };
      // The same key and the same purchase: Stripe replays the first session.
      if (previous) expect(sessionId, `replayed session: ${describeWire(wire)}`).toBe(previous.sessionId);
      else idempotency.set(scoped, { fingerprint, sessionId });
      return answer;
    }
    const answer = await send(wire);
    const error = checkAnswer(wire, answer);
    const at = where(wire, answer);
    if (e.kind === 'status') {
      expect(answer.status, at).toBe(e.status);
      if (e.detailField) {
        const named = (error?.error.details ?? []).map((d) => d.path.split(/[.[]/)[0]);
        expect(named, `details should name ${e.detailField}: ${at}`).toContain(e.detailField);
      }
      return answer;
    }
    expect(answer.status, at).toBe(e.status);
    if (e.status === 200 && e.session) {
      const { purchase } = e.session;
      expect(answer.json, at).toMatchObject({
        planName: purchase.productName,
        customPlan: purchase.details !== undefined,
        total: purchase.amount / factorOf(purchase.project.currency),
        currency: purchase.project.currency,
        billingInterval: purchase.interval,
        metadata: expect.objectContaining(purchase.metadata),
      });
    }
    return answer;
  }

  test('property 3: hostile requests get only allowed answers, in the one error shape, never a 5xx', {
    timeout: 120_000,
  }, async () => {
    // Sessions for the receipt queries: completed ones of two projects and one still open.
    const usd = project('usd');
    const jpy = project('jpy');
    const team = usd.plans.find((p) => p.name === 'Team') as PlanFx;
    const purchases: Array<[ProjectFx, string, Record<string, unknown>, (b: unknown) => Outcome]> = [
      [usd, PLAN_PATH, { shareId: usd.shareId, planId: team.id, seats: 4, billingInterval: 'year' }, planModel],
      [
        jpy,
        CUSTOM_PATH,
        { shareId: jpy.shareId, features: jpy.features.map((f) => ({ featureId: f.id })) },
        customModel,
      ],
      [usd, PLAN_PATH, { shareId: usd.shareId, planId: team.id, customerEmail: 'ada@example.com' }, planModel],
    ];
    for (const [owner, path, body, model] of purchases) {
      const outcome = model(body);
      const answer = await expectCheckout({ method: 'POST', path, body: j(body) }, outcome);
      const { sessionId } = answer.json as { sessionId: string };
      if (outcome.status !== 200) throw new Error('receipt fixtures must be valid purchases');
      if (completed.size < 2) {
        fake.complete(sessionId);
        completed.set(sessionId, { project: owner, purchase: outcome.purchase });
      } else {
        openSessions.add(sessionId);
      }
    }

    await runProperty(
      'hostile requests',
      3,
      150,
      fc.asyncProperty(hostileArb(), async (c) => {
        count(`hostile ${c.expect.kind}`, await runHostile(c));
      }),
    );
  });

  test('every refusal stayed away from Stripe, and every answer had its own request id', () => {
    console.info(
      [...tally.entries()]
        .sort()
        .map(([key, n]) => `[payments-fuzz] ${key}: ${n}`)
        .join('\n'),
    );
    console.info(
      `[payments-fuzz] ${requestsSent} requests, ${stripeCreates} checkout sessions created, ${fake.requests.length} Stripe calls`,
    );
    expect(stripeCreates).toBeGreaterThan(40);
    expect(
      fake.requests.filter((r) => r.method === 'POST').length,
      'session creates: only accepted checkouts (and conflicting keys) reach Stripe',
    ).toBe(stripeCreates + stripeConflicts);
    expect(seenRequestIds.size).toBe(requestsSent);
  });
});
