import { beforeAll, describe, expect, test } from 'vitest';
import { ShareView } from '#domain/share/schemas.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';

const server = useLocalServer();
let api: ApiClient;
let anonymous: ApiClient;

beforeAll(async () => {
  const owner = await newOwner('share');
  api = server.client(owner.writeKey);
  anonymous = server.client(null);
});

/** A project with every kind of data the share endpoint must filter or compute. */
async function richProject() {
  const project = await makeProject(api, {
    name: 'Acme',
    description: 'Analytics',
    pricingPageDescription: 'Simple pricing',
    currency: 'EUR',
    annualDiscount: 0.2,
    annualDiscountEnabled: true,
    checkoutSuccessUrl: 'https://acme.example/secret-success',
    checkoutTestSuccessUrl: 'https://acme.example/secret-test',
    signupUrl: 'https://acme.example/signup',
    theme: { primaryColor: '#FF0000', customCSS: '.card { color: red }', mutedTextColor: '#444444' },
  });
  const events = await makeFeature(api, project.slug, {
    name: 'Events',
    isCountable: true,
    usageCount: 1000,
    condition: 'Up to',
    featureType: 'Limits',
  });
  const sso = await makeFeature(api, project.slug, { name: 'SSO', basePrice: 10 });
  const seats = await makeFeature(api, project.slug, { name: 'Seats', isCountable: true, usageCount: 3 });
  const basic = await makePlan(api, project.slug, {
    name: 'Basic',
    isFree: true,
    features: [{ featureId: events.id, multiplier: 1.1 }],
  });
  const hidden = await makePlan(api, project.slug, {
    name: 'Hidden',
    isVisible: false,
    features: [{ featureId: sso.id }],
  });
  const pro = await makePlan(api, project.slug, {
    name: 'Pro',
    basePrice: 49,
    isPopular: true,
    features: [
      { featureId: events.id, multiplier: 10 },
      { featureId: sso.id, multiplier: 4 },
    ],
  });
  await api.put(`/api/v1/projects/${project.slug}/plans/${pro.id}`, {
    freemiumDay: 14,
    isPerUserPricing: true,
    perUserMultiplier: 0.5,
  });
  return { project, events, sso, seats, basic, hidden, pro };
}

describe('GET /api/share/{shareId}', () => {
  test('answers exactly the shape of decisions.md, visible plans only, with computed limits', async () => {
    const { project, events, sso, seats, basic, pro } = await richProject();
    const response = await anonymous.get(`/api/share/${project.shareId}`);
    expect(response.status).toBe(200);
    const share = ShareView().parse(response.body);
    expect(share).toMatchObject({
      id: project.id,
      name: 'Acme',
      description: 'Analytics',
      pricingPageDescription: 'Simple pricing',
      currency: 'EUR',
      annualDiscount: 0.2,
      annualDiscountEnabled: true,
      paymentsConnected: false,
      signupUrl: 'https://acme.example/signup',
    });
    expect(share.plans.map((p) => p.name)).toEqual(['Basic', 'Pro']);
    expect(share.plans.map((p) => p.id)).toEqual([basic.id, pro.id]);
    expect(share.plans[0]).toEqual({
      id: basic.id,
      name: 'Basic',
      description: '',
      basePrice: 0,
      isFree: true,
      isPopular: false,
      freemiumDay: 0,
      isPerUserPricing: false,
      perUserMultiplier: 1,
      features: [
        { name: 'Events', included: true, limit: 1100, featureType: 'Limits', condition: 'Up to' },
        { name: 'SSO', included: false, limit: null, featureType: 'Standart', condition: null },
        { name: 'Seats', included: false, limit: null, featureType: 'Standart', condition: 'Up to' },
      ],
    });
    expect(share.plans[1]).toMatchObject({
      isPopular: true,
      freemiumDay: 14,
      isPerUserPricing: true,
      perUserMultiplier: 0.5,
    });
    expect(share.plans[1]?.features).toEqual([
      { name: 'Events', included: true, limit: 10_000, featureType: 'Limits', condition: 'Up to' },
      { name: 'SSO', included: true, limit: null, featureType: 'Standart', condition: null },
      { name: 'Seats', included: false, limit: null, featureType: 'Standart', condition: 'Up to' },
    ]);
    expect(share.features).toEqual([
      {
        id: events.id,
        name: 'Events',
        description: '',
        featureType: 'Limits',
        basePrice: 1,
        isCountable: true,
        countableData: { usageCount: 1000, condition: 'Up to', countPrice: 0, eventAggregationMethod: 'count' },
      },
      {
        id: sso.id,
        name: 'SSO',
        description: '',
        featureType: 'Standart',
        basePrice: 10,
        isCountable: false,
        countableData: null,
      },
      expect.objectContaining({ id: seats.id, isCountable: true }),
    ]);
    expect(share.themeSettings).toMatchObject({
      primaryColor: '#FF0000',
      customCSS: '.card { color: red }',
      // Unset: null, for the widget to derive from the background; set: as given.
      textColor: null,
      mutedTextColor: '#444444',
    });
  });

  test("carries the Cuprice-compatible pricingPlans: visible plans by id, order, each assigned feature's details", async () => {
    const { project, events, sso, basic, pro } = await richProject();
    const share = ShareView().parse((await anonymous.get(`/api/share/${project.shareId}`)).body);
    const eventsDetails = {
      id: events.id,
      name: 'Events',
      description: '',
      featureType: 'Limits',
      basePrice: 1,
      countableData: { usageCount: 1000, condition: 'Up to', countPrice: 0, eventAggregationMethod: 'count' },
    };
    const ssoDetails = {
      id: sso.id,
      name: 'SSO',
      description: '',
      featureType: 'Standart',
      basePrice: 10,
      countableData: null,
    };
    const planFeatureIds = async (planId: number) =>
      (
        (await api.get(`/api/v1/projects/${project.slug}/plans/${planId}/features`)).body.features as { id: number }[]
      ).map((f) => f.id);
    const [basicEvents] = await planFeatureIds(basic.id);
    const [proEvents, proSso] = await planFeatureIds(pro.id);
    expect(share.pricingPlans).toEqual([
      {
        id: basic.id,
        name: 'Basic',
        description: '',
        order: 0,
        isVisible: true,
        isPopular: false,
        isFree: true,
        basePrice: 0,
        freemiumDay: 0,
        isPerUserPricing: false,
        perUserMultiplier: 1,
        planFeatures: [{ id: basicEvents, multiplier: 1.1, feature: eventsDetails }],
      },
      {
        id: pro.id,
        name: 'Pro',
        description: '',
        order: 1,
        isVisible: true,
        isPopular: true,
        isFree: false,
        basePrice: 49,
        freemiumDay: 14,
        isPerUserPricing: true,
        perUserMultiplier: 0.5,
        planFeatures: [
          { id: proEvents, multiplier: 10, feature: eventsDetails },
          { id: proSso, multiplier: 4, feature: ssoDetails },
        ],
      },
    ]);
    // Every feature, countable or not, carries what a Cuprice custom plan reads.
    for (const feature of share.features) expect(feature).toHaveProperty('countableData');

    // The same content in every coding, under one tag: which form it carries depends on the
    // project alone, never on Accept-Encoding.
    const path = `/api/share/${project.shareId}`;
    const identity = await anonymous.get(path, { headers: { 'accept-encoding': 'identity' } });
    expect(identity.headers.get('content-encoding')).toBeNull();
    expect(identity.body).toEqual(share);
    for (const coding of ['br', 'gzip']) {
      const coded = await anonymous.get(path, { headers: { 'accept-encoding': coding } });
      expect(coded.headers.get('content-encoding')).toBe(coding);
      expect(coded.body).toEqual(share);
      expect(coded.headers.get('etag')).toBe(identity.headers.get('etag')?.replace(/"$/, `-${coding}"`));
    }
  });

  test('leaks nothing of the owner: no slug, owner, URLs, hidden plan or counts', async () => {
    const { project, hidden } = await richProject();
    const { text, body } = await anonymous.get(`/api/share/${project.shareId}`);
    for (const secret of ['secret-success', 'secret-test', project.slug, 'Hidden', 'ownerId', 'share-', '_count']) {
      expect(text).not.toContain(secret);
    }
    expect(body.plans.map((p: { id: number }) => p.id)).not.toContain(hidden.id);
  });

  test('unknown share ids, inactive and deleted projects are 404 with the error body', async () => {
    const project = await makeProject(api);
    const path = `/api/share/${project.shareId}`;
    expect((await anonymous.get(path)).status).toBe(200);
    await api.put(`/api/v1/projects/${project.slug}`, { isActive: false });
    const inactive = await anonymous.get(path);
    expect(inactive.status).toBe(404);
    expect(inactive.body.error.code).toBe('not_found');
    await api.put(`/api/v1/projects/${project.slug}`, { isActive: true });
    expect((await anonymous.get(path)).status).toBe(200);
    await api.delete(`/api/v1/projects/${project.slug}`);
    expect((await anonymous.get(path)).status).toBe(404);
    for (const id of ['abcdefghijklmnopqrstuvwxyz', 'short', 'x'.repeat(200), '..%2F..%2Fetc']) {
      expect((await anonymous.get(`/api/share/${id}`)).status).toBe(404);
    }
  });

  test('sends CORS headers on success and on errors, and answers OPTIONS preflights', async () => {
    const project = await makeProject(api);
    const ok = await anonymous.get(`/api/share/${project.shareId}`, {
      headers: { origin: 'https://customer.example' },
    });
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
    expect(ok.headers.get('access-control-expose-headers')).toContain('ETag');
    const missing = await anonymous.get('/api/share/abcdefghijklmnopqrstuvwxyz');
    expect(missing.headers.get('access-control-allow-origin')).toBe('*');

    const preflight = await anonymous.request('OPTIONS', `/api/share/${project.shareId}`, {
      headers: {
        origin: 'https://customer.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'if-none-match',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('GET');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('if-none-match');
  });

  test('is cacheable for at most 60 s and honours If-None-Match with 304', async () => {
    const project = await makeProject(api);
    const path = `/api/share/${project.shareId}`;
    const first = await anonymous.get(path);
    const maxAge = Number(/max-age=(\d+)/.exec(first.headers.get('cache-control') ?? '')?.[1]);
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge).toBeLessThanOrEqual(60);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[^"]+"$/);

    const notModified = await anonymous.get(path, { headers: { 'if-none-match': `"other", ${etag}` } });
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe('');
    expect(notModified.headers.get('etag')).toBe(etag);
    expect((await anonymous.get(path, { headers: { 'if-none-match': `W/${etag}` } })).status).toBe(304);

    await api.put(`/api/v1/projects/${project.slug}`, { name: 'Changed' });
    const changed = await anonymous.get(path, { headers: { 'if-none-match': etag ?? '' } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(changed.body.name).toBe('Changed');
  });

  test('needs no key, and a key changes nothing', async () => {
    const project = await makeProject(api);
    const withKey = await api.get(`/api/share/${project.shareId}`);
    const withoutKey = await anonymous.get(`/api/share/${project.shareId}`);
    expect(withKey.body).toEqual(withoutKey.body);
  });
});
