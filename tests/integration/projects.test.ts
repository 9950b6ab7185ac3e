import { beforeAll, describe, expect, test } from 'vitest';
import { ProjectSummaryView, ProjectView } from '#domain/projects/schemas.ts';
import { defaultTheme } from '#domain/projects/theme.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';
import { sweepsFinished } from '../fixtures/sweeps.ts';
import { itemsOfOwner, storedAssignments } from '../fixtures/table.ts';

const server = useLocalServer();
let api: ApiClient;
let ownerId: string;

beforeAll(async () => {
  const owner = await newOwner('projects');
  ownerId = owner.ownerId;
  api = server.client(owner.writeKey);
});

describe('POST /api/v1/projects', () => {
  test('creates a project with the defaults of decisions.md, 201 with the full shape', async () => {
    const response = await api.post('/api/v1/projects', { name: '  Acme Analytics  ' });
    expect(response.status).toBe(201);
    const project = ProjectView().parse(response.body);
    expect(project).toMatchObject({
      name: 'Acme Analytics',
      slug: 'acme-analytics',
      description: '',
      pricingPageDescription: '',
      currency: 'USD',
      annualDiscount: 0,
      annualDiscountEnabled: false,
      isActive: true,
      checkoutSuccessUrl: null,
      checkoutCancelUrl: null,
      checkoutTestSuccessUrl: null,
      checkoutTestCancelUrl: null,
      signupUrl: null,
      themeSettings: defaultTheme,
      features: [],
      pricingPlans: [],
    });
    expect(project.id).toBeGreaterThan(0);
    expect(project.shareId).toMatch(/^[a-z0-9]{26}$/);
    expect(new Date(project.createdAt).toISOString()).toBe(project.createdAt);
    expect(project.updatedAt).toBe(project.createdAt);
  });

  test('accepts every field PUT accepts, normalises currency, merges a partial theme', async () => {
    const response = await api.post('/api/v1/projects', {
      name: 'Full',
      slug: 'full-fields',
      description: 'd',
      pricingPageDescription: 'p',
      currency: 'eur',
      annualDiscount: 0.2,
      annualDiscountEnabled: true,
      isActive: false,
      checkoutSuccessUrl: 'https://example.com/ok',
      checkoutCancelUrl: 'https://example.com/cancel',
      checkoutTestSuccessUrl: 'http://localhost:5173/ok',
      checkoutTestCancelUrl: null,
      theme: { primaryColor: '#112233', headerAlign: 'left' },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      slug: 'full-fields',
      currency: 'EUR',
      annualDiscount: 0.2,
      annualDiscountEnabled: true,
      isActive: false,
      checkoutSuccessUrl: 'https://example.com/ok',
      checkoutTestCancelUrl: null,
      themeSettings: { ...defaultTheme, primaryColor: '#112233', headerAlign: 'left' },
    });
  });

  test('ids increase and are never reused', async () => {
    const a = await makeProject(api);
    const b = await makeProject(api);
    expect(b.id).toBeGreaterThan(a.id);
    await api.delete(`/api/v1/projects/${b.slug}`);
    const c = await makeProject(api);
    expect(c.id).toBeGreaterThan(b.id);
  });

  test('derives slugs from names, with -2, -3 on collision', async () => {
    const first = await makeProject(api, { name: 'Crème Brûlée Co.' });
    const second = await makeProject(api, { name: 'Creme brulee co' });
    const third = await makeProject(api, { name: 'CRÈME BRÛLÉE CO' });
    expect([first.slug, second.slug, third.slug]).toEqual([
      'creme-brulee-co',
      'creme-brulee-co-2',
      'creme-brulee-co-3',
    ]);
  });

  test('a name with nothing slug-worthy still gets a slug', async () => {
    const project = await makeProject(api, { name: '日本語のみ' });
    expect(project.slug).toMatch(/^project(-\d+)?$/);
  });

  test('a long name gives a slug of at most 64 characters, suffixes included', async () => {
    const name = 'x'.repeat(100);
    const a = await makeProject(api, { name });
    const b = await makeProject(api, { name });
    expect(a.slug).toHaveLength(64);
    expect(b.slug).toHaveLength(64);
    expect(b.slug.endsWith('-2')).toBe(true);
  });

  test('an explicit slug that is taken is 409 conflict; the same slug for another owner is fine', async () => {
    await makeProject(api, { slug: 'taken-slug' });
    const again = await api.post('/api/v1/projects', { name: 'Again', slug: 'taken-slug' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');

    const other = await newOwner('other');
    const elsewhere = await server
      .client(other.writeKey)
      .post('/api/v1/projects', { name: 'Mine', slug: 'taken-slug' });
    expect(elsewhere.status).toBe(201);
  });

  test.each([['UPPER'], ['-lead'], ['trail-'], ['dou--ble'], ['sp ace'], ['x'.repeat(65)], ['']])(
    'rejects slug %j with 400 naming the field',
    async (slug) => {
      const response = await api.post('/api/v1/projects', { name: 'Slug test', slug });
      expect(response.status).toBe(400);
      expect(response.body.error.details).toContainEqual(expect.objectContaining({ path: 'slug' }));
    },
  );

  test.each([
    [{ name: '' }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 'x'.repeat(101) }, 'name'],
    [{}, 'name'],
    [{ name: 1 }, 'name'],
    [{ name: 'ok', currency: 'EURO' }, 'currency'],
    [{ name: 'ok', currency: 'XXY' }, 'currency'],
    [{ name: 'ok', annualDiscount: 1 }, 'annualDiscount'],
    [{ name: 'ok', annualDiscount: -0.1 }, 'annualDiscount'],
    [{ name: 'ok', annualDiscountEnabled: 'yes' }, 'annualDiscountEnabled'],
    [{ name: 'ok', description: 'x'.repeat(2001) }, 'description'],
    [{ name: 'ok', pricingPageDescription: 'x'.repeat(5001) }, 'pricingPageDescription'],
    [{ name: 'ok', checkoutSuccessUrl: 'ftp://example.com' }, 'checkoutSuccessUrl'],
    [{ name: 'ok', checkoutCancelUrl: '/relative' }, 'checkoutCancelUrl'],
    [{ name: 'ok', checkoutTestSuccessUrl: `https://e.com/${'x'.repeat(2048)}` }, 'checkoutTestSuccessUrl'],
    [{ name: 'ok', theme: { primaryColor: 'red' } }, 'theme.primaryColor'],
    [{ name: 'ok', theme: { hoverColor: '#12345' } }, 'theme.hoverColor'],
    [{ name: 'ok', theme: { borderRadius: '12' } }, 'theme.borderRadius'],
    [{ name: 'ok', theme: { headerAlign: 'middle' } }, 'theme.headerAlign'],
    [{ name: 'ok', theme: { popularBadgePosition: 'bottom' } }, 'theme.popularBadgePosition'],
    [{ name: 'ok', theme: { customCSS: 'x'.repeat(20_001) } }, 'theme.customCSS'],
    [{ name: 'ok', theme: { fontFamily: 'Inter; } body { color: red' } }, 'theme.fontFamily'],
    [{ name: 'ok', theme: { showProjectName: 'true' } }, 'theme.showProjectName'],
    [{ name: 'ok', theme: { textColor: 'white' } }, 'theme.textColor'],
    [{ name: 'ok', theme: { mutedTextColor: '#12' } }, 'theme.mutedTextColor'],
    [{ name: 'ok', signupUrl: 'javascript:alert(1)' }, 'signupUrl'],
    [{ name: 'ok', theme: [] }, 'theme'],
  ])('rejects %j with 400 naming %s', async (body, path) => {
    const response = await api.post('/api/v1/projects', body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('validation_error');
    expect(response.body.error.details).toContainEqual(expect.objectContaining({ path }));
  });

  test('accepts the bounds exactly', async () => {
    const response = await api.post('/api/v1/projects', {
      name: 'n'.repeat(100),
      description: 'd'.repeat(2000),
      pricingPageDescription: 'p'.repeat(5000),
      checkoutSuccessUrl: `https://e.com/${'x'.repeat(2048 - 'https://e.com/'.length)}`,
      theme: {
        customCSS: 'c'.repeat(20_000),
        fontFamily: 'f'.repeat(200),
        borderRadius: '0.5rem',
        primaryColor: '#abcdef80',
      },
    });
    expect(response.status, response.text).toBe(201);
  });

  test('ignores the read-only fields GET returns (unknown ones are 400: tests/integration/v1-scripting.test.ts)', async () => {
    const response = await api.post('/api/v1/projects', {
      name: 'Ignore',
      id: 999_999,
      shareId: 'chosen-by-me',
      _count: { features: 5 },
      features: [{ name: 'x' }],
      createdAt: '2000-01-01T00:00:00.000Z',
    });
    expect(response.status).toBe(201);
    expect(response.body.id).not.toBe(999_999);
    expect(response.body.shareId).not.toBe('chosen-by-me');
    expect(response.body.features).toEqual([]);
    expect(response.body.createdAt).not.toBe('2000-01-01T00:00:00.000Z');
  });
});

describe('GET /api/v1/projects', () => {
  test('lists the owner projects in id order with exact _count and only the list fields', async () => {
    const owner = await newOwner('list');
    const mine = server.client(owner.writeKey);
    const a = await makeProject(mine, { name: 'A' });
    const b = await makeProject(mine, { name: 'B' });
    const f1 = await makeFeature(mine, a.slug);
    await makeFeature(mine, a.slug);
    await makePlan(mine, a.slug, { features: [{ featureId: f1.id }] });
    await mine.delete(`/api/v1/projects/${a.slug}/features/${f1.id}`);

    const response = await server.client(owner.readKey).get('/api/v1/projects');
    expect(response.status).toBe(200);
    const projects = response.body.projects.map((p: unknown) => ProjectSummaryView().parse(p));
    expect(projects.map((p: { id: number }) => p.id)).toEqual([a.id, b.id]);
    expect(projects[0]._count).toEqual({ features: 1, pricingPlans: 1 });
    expect(projects[1]._count).toEqual({ features: 0, pricingPlans: 0 });
  });

  test('a new owner has an empty list', async () => {
    const owner = await newOwner('empty');
    const response = await server.client(owner.readKey).get('/api/v1/projects');
    expect(response.body).toEqual({ projects: [] });
  });
});

describe('GET /api/v1/projects/{slug}', () => {
  test('returns features with countableData and plans with planFeatures, all in id order', async () => {
    const project = await makeProject(api);
    const counted = await makeFeature(api, project.slug, { name: 'API calls', isCountable: true, usageCount: 1000 });
    const plain = await makeFeature(api, project.slug, { name: 'SSO' });
    const plan = await makePlan(api, project.slug, {
      features: [
        { featureId: plain.id, multiplier: 1 },
        { featureId: counted.id, multiplier: 3 },
      ],
    });
    const response = await api.get(`/api/v1/projects/${project.slug}`);
    expect(response.status).toBe(200);
    const body = ProjectView().parse(response.body);
    expect(body.features.map((f) => f.id)).toEqual([counted.id, plain.id]);
    expect(body.features[0]?.countableData).toEqual({
      usageCount: 1000,
      condition: 'Up to',
      countPrice: 0,
      eventAggregationMethod: 'count',
    });
    expect(body.features[1]?.countableData).toBeNull();
    expect(body.pricingPlans).toHaveLength(1);
    expect(body.pricingPlans[0]?.id).toBe(plan.id);
    expect(body.pricingPlans[0]?.planFeatures.map((pf) => [pf.feature.id, pf.multiplier])).toEqual([
      [plain.id, 1],
      [counted.id, 3],
    ]);
  });

  test('an unknown slug, or one that is not a slug, is 404', async () => {
    for (const slug of ['no-such-project', 'NOT_A_SLUG', '%20']) {
      const response = await api.get(`/api/v1/projects/${slug}`);
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('not_found');
    }
  });
});

describe('PUT /api/v1/projects/{slug}', () => {
  test('is partial: only the fields sent change, and the theme merges', async () => {
    const project = await makeProject(api, {
      description: 'keep me',
      checkoutSuccessUrl: 'https://example.com/ok',
      theme: { primaryColor: '#000000', headerAlign: 'right' },
    });
    const response = await api.put(`/api/v1/projects/${project.slug}`, {
      name: 'Renamed',
      theme: { hoverColor: '#111111' },
    });
    expect(response.status).toBe(200);
    const updated = ProjectView().parse(response.body);
    expect(updated).toMatchObject({
      name: 'Renamed',
      slug: project.slug,
      description: 'keep me',
      checkoutSuccessUrl: 'https://example.com/ok',
      themeSettings: { ...defaultTheme, primaryColor: '#000000', headerAlign: 'right', hoverColor: '#111111' },
    });
    expect(updated.updatedAt > project.updatedAt).toBe(true);
    expect((await api.get(`/api/v1/projects/${project.slug}`)).body).toEqual(updated);
  });

  test('signupUrl and the theme text colors are set, read back, and cleared with null', async () => {
    const project = await makeProject(api, {
      signupUrl: 'https://example.com/signup',
      theme: { textColor: '#F9FAFB', mutedTextColor: '#D1D5DB', pricingBackgroundColor: '#111827' },
    });
    expect(project).toMatchObject({ signupUrl: 'https://example.com/signup' });
    const read = (await api.get(`/api/v1/projects/${project.slug}`)).body;
    expect(read.signupUrl).toBe('https://example.com/signup');
    expect(read.themeSettings).toMatchObject({ textColor: '#F9FAFB', mutedTextColor: '#D1D5DB' });
    const cleared = await api.put(`/api/v1/projects/${project.slug}`, {
      signupUrl: null,
      theme: { textColor: null },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.signupUrl).toBeNull();
    expect(cleared.body.themeSettings).toMatchObject({ textColor: null, mutedTextColor: '#D1D5DB' });
    expect((await api.get(`/api/v1/projects/${project.slug}`)).body).toEqual(cleared.body);
  });

  test('null clears a checkout URL; isActive toggles', async () => {
    const project = await makeProject(api, { checkoutCancelUrl: 'https://example.com/c' });
    const response = await api.put(`/api/v1/projects/${project.slug}`, { checkoutCancelUrl: null, isActive: false });
    expect(response.body.checkoutCancelUrl).toBeNull();
    expect(response.body.isActive).toBe(false);
  });

  test('a GET-edit-PUT round trip works: read-only fields sent back are ignored, slug is immutable', async () => {
    const project = await makeProject(api);
    await makeFeature(api, project.slug);
    const current = (await api.get(`/api/v1/projects/${project.slug}`)).body;
    const response = await api.put(`/api/v1/projects/${project.slug}`, {
      ...current,
      name: 'Round trip',
      slug: 'attempted-change',
      id: 1,
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ ...current, name: 'Round trip', updatedAt: expect.any(String) });
    expect(response.body.slug).toBe(project.slug);
  });

  test('an empty body changes nothing', async () => {
    const project = await makeProject(api);
    const response = await api.put(`/api/v1/projects/${project.slug}`, {});
    expect(response.status).toBe(200);
    expect(response.body.updatedAt).toBe(project.updatedAt);
  });

  test('invalid values are 400 and change nothing', async () => {
    const project = await makeProject(api);
    const response = await api.put(`/api/v1/projects/${project.slug}`, { name: 'x'.repeat(101), description: 'new' });
    expect(response.status).toBe(400);
    expect((await api.get(`/api/v1/projects/${project.slug}`)).body.description).toBe('');
  });

  test('an unknown project is 404; a bad body on it is 400 first', async () => {
    expect((await api.put('/api/v1/projects/not-there', { name: 'x' })).status).toBe(404);
    expect((await api.put('/api/v1/projects/not-there', { name: '' })).status).toBe(400);
  });
});

describe('DELETE /api/v1/projects/{slug}', () => {
  test('cascades: nothing of the project is left in the table', async () => {
    const owner = await newOwner('cascade');
    const mine = server.client(owner.writeKey);
    const project = await makeProject(mine);
    const features = [];
    for (let i = 0; i < 30; i++) features.push(await makeFeature(mine, project.slug));
    for (let i = 0; i < 5; i++) {
      await makePlan(mine, project.slug, { features: features.map((f) => ({ featureId: f.id })) });
    }
    const before = await itemsOfOwner(owner.ownerId);
    expect(storedAssignments(before)).toHaveLength(150);

    const response = await mine.delete(`/api/v1/projects/${project.slug}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true });
    await sweepsFinished(owner.ownerId);
    expect(await itemsOfOwner(owner.ownerId)).toEqual([]);
    expect((await mine.get(`/api/v1/projects/${project.slug}`)).status).toBe(404);
    expect((await mine.get('/api/v1/projects')).body.projects).toEqual([]);
  });

  test('a second delete is 404, and the slug can be used again with nothing inherited', async () => {
    const project = await makeProject(api, { slug: 'reborn' });
    await makeFeature(api, 'reborn');
    await api.delete('/api/v1/projects/reborn');
    expect((await api.delete('/api/v1/projects/reborn')).status).toBe(404);
    const again = await makeProject(api, { slug: 'reborn' });
    expect(again.id).not.toBe(project.id);
    expect(again.features).toEqual([]);
    expect((await api.get('/api/v1/projects/reborn/features')).body.features).toEqual([]);
  });

  test('owner-scoped item check: other owners are untouched', async () => {
    // The earlier tests' deletes are swept in the background: count once they are done.
    await sweepsFinished(ownerId);
    const before = await itemsOfOwner(ownerId);
    const project = await makeProject(api);
    await api.delete(`/api/v1/projects/${project.slug}`);
    await sweepsFinished(ownerId);
    expect((await itemsOfOwner(ownerId)).length).toBe(before.length);
  });
});
