import { invalid, missing, noSuch } from './errors.ts';
import type { Params } from './form.ts';
import {
  absoluteUrl,
  bool,
  charLength,
  expandList,
  hash,
  integer,
  list,
  metadata,
  name,
  oneOf,
  rejectUnknown,
  text,
} from './params.ts';
import type { FakeSession, Interval } from './types.ts';

// What POST /v1/checkout/sessions accepts, validated as Stripe does it.

const MAX_UNIT_AMOUNT = 99_999_999;
const MAX_TRIAL_DAYS = 730;
const INTERVALS: readonly Interval[] = ['day', 'week', 'month', 'year'];
// Stripe allows at most a year between renewals, whatever the unit.
const MAX_INTERVAL_COUNT: Record<Interval, number> = { day: 365, week: 52, month: 12, year: 1 };
const CREATE_PARAMS = [
  'mode',
  'line_items',
  'success_url',
  'cancel_url',
  'customer_email',
  'metadata',
  'subscription_data',
  'client_reference_id',
  'expand',
  'locale',
  'allow_promotion_codes',
  'payment_method_types',
  'billing_address_collection',
];
const LOCALES = [
  'auto',
  'bg',
  'cs',
  'da',
  'de',
  'el',
  'en',
  'en-GB',
  'es',
  'es-419',
  'et',
  'fi',
  'fil',
  'fr',
  'fr-CA',
  'hr',
  'hu',
  'id',
  'it',
  'ja',
  'ko',
  'lt',
  'lv',
  'ms',
  'mt',
  'nb',
  'nl',
  'pl',
  'pt',
  'pt-BR',
  'ro',
  'ru',
  'sk',
  'sl',
  'sv',
  'th',
  'tr',
  'vi',
  'zh',
  'zh-HK',
  'zh-TW',
];

interface LineItemInput {
  name: string;
  currency: string;
  unitAmount: number;
  quantity: number;
  recurring: { interval: Interval; interval_count: number } | null;
}

function lineItem(value: unknown, index: number): LineItemInput {
  const prefix = name('line_items', index);
  const item = hash(value, prefix);
  if (!item) throw missing(prefix);
  rejectUnknown(item, ['price', 'price_data', 'quantity'], prefix);
  const priceId = text(item.price, name(prefix, 'price'), false);
  if (priceId !== undefined) throw noSuch('price', priceId, name(prefix, 'price'));

  const dataParam = name(prefix, 'price_data');
  const data = hash(item.price_data, dataParam);
  if (!data) throw missing(dataParam);
  rejectUnknown(data, ['currency', 'unit_amount', 'product', 'product_data', 'recurring', 'tax_behavior'], dataParam);

  const currencyParam = name(dataParam, 'currency');
  const currency = text(data.currency, currencyParam, true) ?? '';
  // Stripe documents lowercase but accepts any case, and answers in lowercase.
  if (!/^[A-Za-z]{3}$/.test(currency)) throw invalid(`Invalid currency: ${currency}.`, currencyParam);

  const amountParam = name(dataParam, 'unit_amount');
  if (data.unit_amount === undefined) throw missing(amountParam);
  const unitAmount = integer(data.unit_amount, amountParam, 0, MAX_UNIT_AMOUNT);

  const productId = text(data.product, name(dataParam, 'product'), false);
  if (productId !== undefined) throw noSuch('product', productId, name(dataParam, 'product'));
  const productParam = name(dataParam, 'product_data');
  const product = hash(data.product_data, productParam);
  if (!product) throw missing(productParam);
  rejectUnknown(product, ['name', 'description', 'metadata'], productParam);
  const productName = text(product.name, name(productParam, 'name'), true) ?? '';
  text(product.description, name(productParam, 'description'), false);
  metadata(product.metadata, name(productParam, 'metadata'));

  const taxBehavior = text(data.tax_behavior, name(dataParam, 'tax_behavior'), false);
  if (taxBehavior !== undefined) {
    oneOf(taxBehavior, ['exclusive', 'inclusive', 'unspecified'], name(dataParam, 'tax_behavior'));
  }

  let recurring: LineItemInput['recurring'] = null;
  const recurringParam = name(dataParam, 'recurring');
  const recurringHash = hash(data.recurring, recurringParam);
  if (recurringHash) {
    rejectUnknown(recurringHash, ['interval', 'interval_count'], recurringParam);
    const intervalParam = name(recurringParam, 'interval');
    const interval = oneOf(text(recurringHash.interval, intervalParam, true) ?? '', INTERVALS, intervalParam);
    const countParam = name(recurringParam, 'interval_count');
    const count =
      recurringHash.interval_count === undefined ? 1 : integer(recurringHash.interval_count, countParam, 1, 1000);
    if (count > MAX_INTERVAL_COUNT[interval]) {
      throw invalid('Maximum of one year interval allowed (1 year, 12 months, or 52 weeks).', countParam);
    }
    recurring = { interval, interval_count: count };
  }

  const quantityParam = name(prefix, 'quantity');
  if (item.quantity === undefined) throw missing(quantityParam);
  const quantity = integer(item.quantity, quantityParam, 1, 999_999);

  return { name: productName, currency: currency.toLowerCase(), unitAmount, quantity, recurring };
}

interface SessionInput {
  mode: FakeSession['mode'];
  successUrl: string;
  cancelUrl: string | null;
  customerEmail: string | null;
  clientReferenceId: string | null;
  locale: string | null;
  metadata: Record<string, string>;
  lineItems: LineItemInput[];
  trialPeriodDays: number | null;
  subscriptionMetadata: Record<string, string>;
  subscriptionDescription: string | null;
  expand: string[];
}

export function sessionInput(params: Params): SessionInput {
  rejectUnknown(params, CREATE_PARAMS, '');
  const mode = oneOf(text(params.mode, 'mode', true) ?? '', ['payment', 'setup', 'subscription'], 'mode');
  const successUrl = absoluteUrl(params.success_url, 'success_url', true) ?? '';
  const cancelUrl = absoluteUrl(params.cancel_url, 'cancel_url', false) ?? null;

  const rawItems = list(params.line_items, 'line_items');
  if (mode === 'setup' && rawItems) {
    throw invalid('You cannot pass `line_items` in `setup` mode.', 'line_items');
  }
  if (mode !== 'setup' && (!rawItems || rawItems.length === 0)) {
    throw invalid(`\`line_items\` is required in \`${mode}\` mode.`, 'line_items', 'parameter_missing');
  }
  const items = (rawItems ?? []).map((item, i) => lineItem(item, i));
  if (items.length > 100) throw invalid('You may only specify up to 100 line items.', 'line_items');
  const currencies = new Set(items.map((item) => item.currency));
  if (currencies.size > 1) {
    throw invalid(`All line items must use the same currency, but got ${[...currencies].join(', ')}.`, 'line_items');
  }
  const recurringIndex = items.findIndex((item) => item.recurring !== null);
  if (mode === 'payment' && recurringIndex !== -1) {
    throw invalid(
      'You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices.',
      `line_items[${recurringIndex}][price_data][recurring]`,
    );
  }
  if (mode === 'subscription' && recurringIndex === -1) {
    throw invalid(
      'You must provide at least one recurring price in `subscription` mode when using prices.',
      'line_items',
    );
  }

  let trialPeriodDays: number | null = null;
  let subscriptionMetadata: Record<string, string> = {};
  let subscriptionDescription: string | null = null;
  const subscriptionData = hash(params.subscription_data, 'subscription_data');
  if (subscriptionData) {
    if (mode !== 'subscription') {
      throw invalid('You can only pass in `subscription_data` in `subscription` mode.', 'subscription_data');
    }
    rejectUnknown(subscriptionData, ['trial_period_days', 'metadata', 'description'], 'subscription_data');
    if (subscriptionData.trial_period_days !== undefined && subscriptionData.trial_period_days !== '') {
      const trialParam = 'subscription_data[trial_period_days]';
      trialPeriodDays = integer(subscriptionData.trial_period_days, trialParam, 1, Number.MAX_SAFE_INTEGER);
      if (trialPeriodDays > MAX_TRIAL_DAYS) {
        throw invalid(`The maximum number of trial period days is ${MAX_TRIAL_DAYS} (2 years).`, trialParam);
      }
    }
    subscriptionMetadata = metadata(subscriptionData.metadata, 'subscription_data[metadata]');
    subscriptionDescription = text(subscriptionData.description, 'subscription_data[description]', false) ?? null;
  }

  const customerEmail = text(params.customer_email, 'customer_email', false) ?? null;
  if (customerEmail !== null && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(customerEmail)) {
    throw invalid(`Invalid email address: ${customerEmail}`, 'customer_email', 'email_invalid');
  }
  const clientReferenceId = text(params.client_reference_id, 'client_reference_id', false) ?? null;
  if (clientReferenceId !== null && charLength(clientReferenceId) > 200) {
    throw invalid('Invalid client_reference_id: must be at most 200 characters', 'client_reference_id');
  }
  const localeText = text(params.locale, 'locale', false);
  const locale = localeText === undefined ? null : oneOf(localeText, LOCALES, 'locale');
  bool(params.allow_promotion_codes, 'allow_promotion_codes');
  const billing = text(params.billing_address_collection, 'billing_address_collection', false);
  if (billing !== undefined) oneOf(billing, ['auto', 'required'], 'billing_address_collection');
  const methods = list(params.payment_method_types, 'payment_method_types') ?? [];
  methods.forEach((method, i) => {
    text(method, name('payment_method_types', i), true);
  });

  return {
    mode,
    successUrl,
    cancelUrl,
    customerEmail,
    clientReferenceId,
    locale,
    metadata: metadata(params.metadata, 'metadata'),
    lineItems: items,
    trialPeriodDays,
    subscriptionMetadata,
    subscriptionDescription,
    expand: expandList(params.expand, ['line_items', 'subscription']),
  };
}
