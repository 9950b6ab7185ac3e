/**
 * Examples of the OpenAPI document, by operationId: a request body and the success answer.
 * tests/unit/openapi.test.ts validates each against its operation's schemas, so an example
 * cannot drift from what the service accepts and answers.
 */

import { defaultTheme } from '#domain/projects/theme.ts';

const at = '2026-11-23T09:30:00.000Z';

const theme = { ...defaultTheme, primaryColor: '#0F766E' };

const sso = {
  id: 1,
  name: 'SSO',
  description: '',
  basePrice: 10,
  featureType: 'Standart',
  isCountable: false,
  countableData: null,
  createdAt: at,
  updatedAt: at,
};

const events = {
  id: 2,
  name: 'Events',
  description: 'Tracked events per month',
  basePrice: 0,
  featureType: 'Limits',
  isCountable: true,
  countableData: { usageCount: 10000, condition: 'Up to', countPrice: 0, eventAggregationMethod: 'count' },
  createdAt: at,
  updatedAt: at,
};

type ExampleFeature = typeof sso | typeof events;

const summary = (feature: ExampleFeature) => ({
  id: feature.id,
  name: feature.name,
  featureType: feature.featureType,
  basePrice: feature.basePrice,
});
const detail = (feature: ExampleFeature) => ({
  ...summary(feature),
  description: feature.description,
  isCountable: feature.isCountable,
});
/** A feature as the share answer's Cuprice-compatible planFeatures carry it. */
const cupriceFeature = ({ id, name, description, featureType, basePrice, countableData }: ExampleFeature) => ({
  id,
  name,
  description,
  featureType,
  basePrice,
  countableData,
});

const pro = {
  id: 2,
  name: 'Pro',
  description: '',
  basePrice: 29,
  isPopular: true,
  isVisible: true,
  isFree: false,
  freemiumDay: 14,
  isPerUserPricing: false,
  perUserMultiplier: 1,
  version: 1,
  planFeatures: [
    { id: 2, multiplier: 1, feature: summary(sso) },
    { id: 3, multiplier: 10, feature: summary(events) },
  ],
  createdAt: at,
  updatedAt: at,
};

const projectSummary = {
  id: 1,
  name: 'Acme',
  slug: 'acme',
  description: '',
  shareId: 'Xk3v9QpL2mTz8RwA',
  currency: 'EUR',
  isActive: true,
  paymentsConnected: false,
  paymentsMode: null,
  paymentWebhookConnected: false,
  webhookUrl: 'https://api.example.com/api/payments/webhook/Xk3v9QpL2mTz8RwA',
  createdAt: at,
  updatedAt: at,
};

const project = {
  ...projectSummary,
  pricingPageDescription: 'Simple pricing',
  annualDiscount: 0.2,
  annualDiscountEnabled: true,
  checkoutSuccessUrl: null,
  checkoutCancelUrl: null,
  checkoutTestSuccessUrl: null,
  checkoutTestCancelUrl: null,
  signupUrl: null,
  themeSettings: theme,
  features: [sso, events],
  pricingPlans: [pro],
};

const planFeatures = [
  { id: 2, multiplier: 1, feature: detail(sso) },
  { id: 3, multiplier: 10, feature: detail(events) },
];

export const examples: Record<string, { request?: unknown; response?: unknown }> = {
  listProjects: { response: { projects: [{ ...projectSummary, _count: { features: 2, pricingPlans: 1 } }] } },
  createProject: {
    request: { name: 'Acme', currency: 'EUR', annualDiscount: 0.2, annualDiscountEnabled: true },
    response: { ...project, pricingPageDescription: '', features: [], pricingPlans: [] },
  },
  getProject: { response: project },
  updateProject: {
    request: { pricingPageDescription: 'Simple pricing', theme: { primaryColor: '#0F766E' } },
    response: project,
  },
  deleteProject: { response: { success: true } },
  listFeatures: { response: { features: [sso, events] } },
  createFeature: {
    request: {
      name: 'Events',
      description: 'Tracked events per month',
      basePrice: 0,
      featureType: 'Limits',
      isCountable: true,
      usageCount: 10000,
    },
    response: events,
  },
  updateFeature: { request: { basePrice: 12 }, response: { ...sso, basePrice: 12 } },
  deleteFeature: { response: { success: true } },
  listPlans: { response: { plans: [pro] } },
  createPlan: {
    request: {
      name: 'Pro',
      basePrice: 29,
      isPopular: true,
      freemiumDay: 14,
      features: [{ featureId: 1 }, { featureId: 2, multiplier: 10 }],
    },
    response: pro,
  },
  updatePlan: {
    request: { isPerUserPricing: true, perUserMultiplier: 0.5 },
    response: { ...pro, isPerUserPricing: true, perUserMultiplier: 0.5 },
  },
  deletePlan: { response: { success: true } },
  duplicatePlan: { request: { name: 'Pro (yearly)' }, response: { ...pro, id: 3, name: 'Pro (yearly)' } },
  listPlanFeatures: { response: { features: planFeatures } },
  addPlanFeatures: {
    request: { features: [{ featureId: 1 }, { featureId: 2, multiplier: 10 }] },
    response: { added: 1, skipped: 1, features: planFeatures },
  },
  removePlanFeature: { response: { success: true } },
  updatePlanFeature: { request: { multiplier: 20 }, response: { id: 3, multiplier: 20, feature: detail(events) } },
  getShareView: {
    response: {
      id: 1,
      name: 'Acme',
      description: '',
      pricingPageDescription: 'Simple pricing',
      currency: 'EUR',
      annualDiscount: 0.2,
      annualDiscountEnabled: true,
      paymentsConnected: true,
      signupUrl: 'https://acme.example/signup',
      plans: [
        {
          id: 2,
          name: 'Pro',
          description: '',
          basePrice: 29,
          isFree: false,
          isPopular: true,
          freemiumDay: 14,
          isPerUserPricing: false,
          perUserMultiplier: 1,
          features: [
            { name: 'SSO', included: true, limit: null, featureType: 'Standart', condition: null },
            { name: 'Events', included: true, limit: 100000, featureType: 'Limits', condition: 'Up to' },
          ],
        },
      ],
      features: [sso, events].map(({ createdAt: _c, updatedAt: _u, ...feature }) => feature),
      themeSettings: theme,
      pricingPlans: [
        {
          id: 2,
          name: 'Pro',
          description: '',
          order: 0,
          isVisible: true,
          isPopular: true,
          isFree: false,
          basePrice: 29,
          freemiumDay: 14,
          isPerUserPricing: false,
          perUserMultiplier: 1,
          planFeatures: [
            { id: 3, multiplier: 1, feature: cupriceFeature(sso) },
            { id: 4, multiplier: 10, feature: cupriceFeature(events) },
          ],
        },
      ],
    },
  },
  createPlanCheckout: {
    request: {
      shareId: 'Xk3v9QpL2mTz8RwA',
      planId: 2,
      billingInterval: 'year',
      seats: 4,
      customerEmail: 'ada@example.com',
    },
    response: { sessionId: 'cs_test_a1B2c3', url: 'https://checkout.stripe.com/c/pay/cs_test_a1B2c3' },
  },
  createCustomCheckout: {
    request: { shareId: 'Xk3v9QpL2mTz8RwA', features: [{ featureId: 1 }, { featureId: 2, quantity: 50000 }] },
    response: { sessionId: 'cs_test_d4E5f6', url: 'https://checkout.stripe.com/c/pay/cs_test_d4E5f6' },
  },
  getReceipt: {
    response: {
      planName: 'Pro',
      customPlan: false,
      total: 0,
      currency: 'EUR',
      customer: { email: 'ada@example.com' },
      billingInterval: 'year',
      subscriptionId: 'sub_1Q2w3E',
      metadata: { planId: '2', planVersion: '1', projectId: '1', seats: '4' },
    },
  },
};
