import { randomUUID } from 'node:crypto';
import { beforeAll, expect, test, vi } from 'vitest';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';

/**
 * Usage events with the project cache on (its default 10 s): the cached definition may be
 * older than the project, but an event is never refused, nor a project's batch lost, for
 * what the cache has not seen yet.
 */
vi.hoisted(() => {
  process.env.PROJECT_CACHE_TTL_SECONDS = '10';
});

const server = useLocalServer();
let api: ApiClient;

beforeAll(async () => {
  api = server.client((await newOwner('usage-cache')).writeKey);
});

const uid = () => randomUUID().slice(0, 8);
const countable = (slug: string) => makeFeature(api, slug, { isCountable: true, usageCount: 10 });
const send = (slug: string, featureId: number, eventId = uid(), customerId = 'c') =>
  api.post(`/api/v1/projects/${slug}/events`, { events: [{ eventId, customerId, featureId }] });
const usageOf = async (slug: string, featureId: number, customerId = 'c') =>
  (await api.get(`/api/v1/projects/${slug}/customers/${customerId}/entitlements/${featureId}`)).body.usage;

test('a feature created after the project was cached takes events at once', async () => {
  const project = await makeProject(api);
  const first = await countable(project.slug);
  expect((await send(project.slug, first.id)).status).toBe(200);
  // The project's definition is cached now, without the next feature.
  const second = await countable(project.slug);
  const response = await send(project.slug, second.id);
  expect(response.status, response.text).toBe(200);
  expect(response.body).toEqual({ accepted: 1, duplicates: 0 });
  // A feature that really is not the project's is still a 400.
  expect((await send(project.slug, second.id + 1_000_000)).status).toBe(400);
});

test('a project deleted and created again under its slug takes events at once, without the old usage', async () => {
  const slug = `again-${uid()}`;
  const old = await makeProject(api, { slug });
  const oldFeature = await countable(slug);
  await makePlan(api, slug, { name: 'Free', isFree: true, features: [{ featureId: oldFeature.id }] });
  expect((await send(slug, oldFeature.id, 'e1')).body).toEqual({ accepted: 1, duplicates: 0 });
  expect((await api.delete(`/api/v1/projects/${slug}`)).status).toBe(200);

  const fresh = await makeProject(api, { slug });
  expect(fresh.id).not.toBe(old.id);
  const feature = await countable(slug);
  await makePlan(api, slug, { name: 'Free', isFree: true, features: [{ featureId: feature.id }] });
  // The same event id: the new project never saw it.
  const response = await send(slug, feature.id, 'e1');
  expect(response.status, response.text).toBe(200);
  expect(response.body).toEqual({ accepted: 1, duplicates: 0 });
  expect(await usageOf(slug, feature.id)).toBe(1);
  // The old project's feature is not the new one's.
  expect((await send(slug, oldFeature.id)).status).toBe(400);
});
