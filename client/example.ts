import { parseArgs } from 'node:util';
import { pricingClient } from './index.ts';

/**
 * `npm run example:client`: sets up a pricing page through the typed client, as a customer's
 * script would: a project, two features, two plans with features assigned, then reads the
 * public page back. Against `npm start` with a read_write key:
 *
 *   npm run cli -- keys create --owner acme --permission read_write
 *   PRICING_API_KEY=ppk_... npm run example:client
 *   npm run example:client -- --url http://127.0.0.1:3000 --key ppk_... --name "Acme"
 */

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: process.env.PRICING_API_URL ?? 'http://127.0.0.1:3000' },
    key: { type: 'string', default: process.env.PRICING_API_KEY },
    name: { type: 'string', default: 'Client example' },
  },
});

if (!values.key) {
  console.error(
    'An API key is needed: --key ppk_... or PRICING_API_KEY (npm run cli -- keys create --owner <you> --permission read_write).',
  );
  process.exit(2);
}

const api = pricingClient({ baseUrl: values.url, key: values.key });

/** The answer's data, or the API's error message and a non-zero exit. */
function ok<T>(step: string, result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data !== undefined) return result.data;
  console.error(`${step} failed: ${result.response.status} ${JSON.stringify(result.error)}`);
  process.exit(1);
}

const project = ok(
  'create project',
  await api.POST('/api/v1/projects', {
    body: { name: values.name, currency: 'EUR', annualDiscount: 0.2, annualDiscountEnabled: true },
  }),
);
const path = { slug: project.slug };
console.log(`project ${project.slug} (id ${project.id})`);

const sso = ok(
  'create feature',
  await api.POST('/api/v1/projects/{slug}/features', { params: { path }, body: { name: 'SSO', basePrice: 10 } }),
);
const events = ok(
  'create feature',
  await api.POST('/api/v1/projects/{slug}/features', {
    params: { path },
    body: { name: 'Events', basePrice: 0, featureType: 'Limits', isCountable: true, usageCount: 10_000 },
  }),
);
console.log(`features ${sso.name} (${sso.id}), ${events.name} (${events.id})`);

const free = ok(
  'create plan',
  await api.POST('/api/v1/projects/{slug}/plans', {
    params: { path },
    body: { name: 'Free', isFree: true, features: [{ featureId: events.id }] },
  }),
);
const pro = ok(
  'create plan',
  await api.POST('/api/v1/projects/{slug}/plans', {
    params: { path },
    body: {
      name: 'Pro',
      basePrice: 29,
      isPopular: true,
      features: [{ featureId: sso.id }, { featureId: events.id, multiplier: 10 }],
    },
  }),
);
console.log(
  `plans ${free.name} (${free.id}, ${free.planFeatures.length} feature), ${pro.name} (${pro.id}, ${pro.planFeatures.length} features)`,
);

const page = ok(
  'read share view',
  await api.GET('/api/share/{shareId}', { params: { path: { shareId: project.shareId } } }),
);
console.log(
  `share ${project.shareId}: ${page.plans.map((plan) => `${plan.name} ${plan.basePrice} ${page.currency}`).join(', ')}`,
);
console.log(`page ${values.url}/demo/${project.shareId}`);
