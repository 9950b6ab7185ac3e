/**
 * Plain partial updates (no If-Match) of one resource, 30 at once, over real HTTP against
 * DynamoDB Local: none fails because the others write. Each commits (retried inside while what
 * it read changes) and the last writer wins per field. A 409 stays for If-Match writes that never settle, and then carries Retry-After.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { ConflictError } from '#domain/errors.ts';
import { untilWritten } from '#domain/versions.ts';
import { errorResult } from '#http/errors.ts';
import { type ApiClient, type ApiResponse, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';

const server = useLocalServer();
let api: ApiClient;

beforeAll(async () => {
  const owner = await newOwner('concurrent-puts');
  api = server.client(owner.writeKey);
});

const WRITERS = 30;

async function setUp() {
  const project = await makeProject(api);
  const base = `/api/v1/projects/${project.slug}`;
  const feature = await makeFeature(api, project.slug, { name: 'SSO' });
  const plan = await makePlan(api, project.slug, { name: 'Pro', features: [{ featureId: feature.id }] });
  return { base, feature, plan };
}

/** Every answer 200. */
function allWritten(responses: ApiResponse[]) {
  const statuses = responses.map((r) => r.status);
  expect(
    statuses.filter((s) => s !== 200),
    responses.find((r) => r.status !== 200)?.text,
  ).toEqual([]);
}

describe(`${WRITERS} concurrent PUTs without If-Match`, () => {
  test('on one plan: every one 200, one of the names stored, each change logged', async () => {
    const { base, plan } = await setUp();
    const path = `${base}/plans/${plan.id}`;
    const names = Array.from({ length: WRITERS }, (_, i) => `Name ${i}`);
    const responses = await Promise.all(names.map((name) => api.put(path, { name })));
    allWritten(responses);
    const stored = (await api.get(`${base}/plans`)).body.plans.find((p: { id: number }) => p.id === plan.id);
    expect(names).toContain(stored.name);
    // Other fields written alongside stay as they were: each PUT changes only its own.
    expect(stored.planFeatures).toHaveLength(1);
  }, 60_000);

  test('on one plan feature: every one 200, one of the multipliers stored', async () => {
    const { base, plan, feature } = await setUp();
    const path = `${base}/plans/${plan.id}/features/${feature.id}`;
    const multipliers = Array.from({ length: WRITERS }, (_, i) => i + 2);
    const responses = await Promise.all(multipliers.map((multiplier) => api.put(path, { multiplier })));
    allWritten(responses);
    const stored = (await api.get(`${base}/plans/${plan.id}/features`)).body.features[0];
    expect(multipliers).toContain(stored.multiplier);
  }, 60_000);

  test('on one feature: every one 200, last writer wins per field', async () => {
    const { base, feature } = await setUp();
    const path = `${base}/features/${feature.id}`;
    const responses = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) =>
        api.put(path, i % 2 ? { name: `Name ${i}` } : { description: `Description ${i}` }),
      ),
    );
    allWritten(responses);
    const stored = (await api.get(`${base}/features`)).body.features.find((f: { id: number }) => f.id === feature.id);
    // Both fields were written by someone: neither PUT undid the other's field.
    expect(stored.name).toMatch(/^Name \d+$/);
    expect(stored.description).toMatch(/^Description \d+$/);
  }, 60_000);
});

describe('a write that never settles', () => {
  test('with If-Match: 409 with Retry-After; without: it keeps trying past the If-Match rounds', async () => {
    let rounds = 0;
    const guarded = untilWritten('plan', { ifMatch: '"x"' }, async () => {
      rounds++;
      return 'stale' as const;
    });
    const error = await guarded.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    const answer = errorResult(error);
    expect(answer?.status).toBe(409);
    expect(Number(answer?.headers?.['retry-after'])).toBeGreaterThanOrEqual(1);
    const guardedRounds = rounds;
    rounds = 0;
    const plain = await untilWritten('plan', {}, async () => (++rounds > guardedRounds + 3 ? 'done' : 'stale'));
    expect(plain).toBe('done');
  }, 60_000);
});
