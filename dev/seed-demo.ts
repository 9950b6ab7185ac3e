import { randomBytes } from 'node:crypto';
import { apiRequest } from './api-request.ts';
import { createWebhookEndpoint, WebhookEndpointError } from './webhook-endpoint.ts';

/**
 * The demo project of `npm run seed`, made through API v1 over HTTP as a customer's script
 * would: features of all three types, a free, a popular (with a trial) and a per-seat plan,
 * a theme, a Stripe test key and test checkout URLs that come back to the demo page.
 */
export interface SeededDemo {
  slug: string;
  shareId: string;
  demoUrl: string;
}

export class SeedError extends Error {}

export async function seedDemo({
  baseUrl,
  key,
  stripeKey = `sk_test_demo${randomBytes(16).toString('hex')}`,
  stripeApiBase,
}: {
  baseUrl: string;
  key: string;
  /** Any well-formed test key works with the fake Stripe; a real one for Stripe's test mode. */
  stripeKey?: string;
  /**
   * A Stripe API (the fake Stripe of `npm start`) to register the project's webhookUrl with,
   * as an owner does in Stripe's dashboard; its signing secret becomes paymentWebhookSecret.
   */
  stripeApiBase?: string;
}): Promise<SeededDemo> {
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const { ok, status, text } = await apiRequest(`${baseUrl}/api/v1${path}`, key, method, body);
    if (!ok) throw new SeedError(`${method} ${path} answered ${status}: ${text}`);
    return JSON.parse(text) as T;
  };

  const { slug, shareId } = await api<{ slug: string; shareId: string }>('POST', '/projects', {
    name: 'Acme Analytics',
    description: 'Product analytics for small teams',
    pricingPageDescription: 'Start free, upgrade when your team grows. Cancel any time.',
    currency: 'USD',
    annualDiscount: 0.2,
    annualDiscountEnabled: true,
  });
  const demoUrl = `${baseUrl}/demo/${shareId}`;

  const feature = (body: Record<string, unknown>) => api<{ id: number }>('POST', `/projects/${slug}/features`, body);
  const dashboards = await feature({
    name: 'Dashboards',
    featureType: 'Limits',
    basePrice: 5,
    isCountable: true,
    usageCount: 3,
    condition: 'Up to',
    countPrice: 1,
  });
  const events = await feature({
    name: 'Tracked events',
    description: 'Events ingested per month',
    featureType: 'Usage Based',
    basePrice: 0,
    isCountable: true,
    usageCount: 10_000,
    condition: 'Up to',
    countPrice: 0.001,
    eventAggregationMethod: 'sum',
  });
  const retention = await feature({
    name: 'Data retention (months)',
    featureType: 'Limits',
    basePrice: 4,
    isCountable: true,
    usageCount: 12,
    condition: 'Unlimited',
  });
  const sso = await feature({ name: 'Single sign-on', featureType: 'Standart', basePrice: 20 });
  const support = await feature({ name: 'Priority support', featureType: 'Standart', basePrice: 15 });

  // What each plan includes: a feature, with a multiplier where the plan scales its usage.
  type Included = [feature: { id: number }, multiplier?: number];
  const starter: Included[] = [[dashboards], [events]];
  const pro: Included[] = [[dashboards, 10], [events, 100], [retention], [sso]];
  const team: Included[] = [[dashboards, 100], [events, 1000], [retention], [sso], [support]];

  const plan = (name: string, description: string, features: Included[], terms: Record<string, unknown>) =>
    api('POST', `/projects/${slug}/plans`, {
      name,
      description,
      ...terms,
      features: features.map(([{ id }, multiplier]) => ({ featureId: id, multiplier })),
    });
  await plan('Starter', 'For side projects', starter, { isFree: true });
  await plan('Pro', 'For growing products', pro, { basePrice: 29, isPopular: true, freemiumDay: 14 });
  await plan('Team', 'Per seat, for the whole company', team, {
    basePrice: 12,
    isPerUserPricing: true,
    perUserMultiplier: 1,
  });

  await api('PUT', `/projects/${slug}`, {
    paymentSecretKey: stripeKey,
    checkoutTestSuccessUrl: `${demoUrl}?checkout=success`,
    checkoutTestCancelUrl: demoUrl,
    // The free plan's button: a real site would send visitors to its sign-up form.
    signupUrl: `${demoUrl}?signup=1`,
    theme: {
      fontFamily: 'ui-rounded, system-ui, sans-serif',
      primaryColor: '#0F766E',
      hoverColor: '#115E59',
      buttonTextColor: '#FFFFFF',
      borderRadius: '16px',
      pricingBackgroundColor: '#FFFFFF',
      pricingBorderColor: '#CBD5E1',
      headerAlign: 'center',
      descriptionAlign: 'center',
      toggleAlign: 'center',
      popularBadgePosition: 'top',
      customCSS: '.card { box-shadow: 0 1px 3px rgb(15 23 42 / 0.08); }\n.header h2 { letter-spacing: -0.02em; }',
    },
  });
  if (stripeApiBase) {
    const { webhookUrl } = await api<{ webhookUrl: string }>('GET', `/projects/${slug}`);
    const secret = await createWebhookEndpoint(stripeApiBase, stripeKey, webhookUrl).catch((error: unknown) => {
      if (!(error instanceof WebhookEndpointError)) throw error;
      throw new SeedError(
        error.status === undefined
          ? `${error.message}: set STRIPE_API_BASE to the one npm start uses.`
          : `Stripe refused the webhook endpoint (${error.status}).`,
      );
    });
    await api('PUT', `/projects/${slug}`, { paymentWebhookSecret: secret });
  }
  return { slug, shareId, demoUrl };
}
