/**
 * The change log, GET /api/v1/projects/{slug}/changes (decisions.md "Scripting v1 safely"),
 * over real HTTP against DynamoDB Local: one entry per write, newest first, written in the
 * write's own transaction, secrets masked, paged, the owner's only, kept 90 days, and gone
 * with the project.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { readChanges } from '#db/changes.ts';
import { insertFeature } from '#db/features.ts';
import { db } from '#db/service.ts';
import { changeEntry } from '#domain/changes.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { featureItem, makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';
import { sweepsFinished } from '../fixtures/sweeps.ts';
import { entityOf, itemsOfProject } from '../fixtures/table.ts';

const server = useLocalServer();
let api: ApiClient;
let reader: ApiClient;
let ownerId: string;
let writeKeyId: string;
let readKeyId: string;

beforeAll(async () => {
  const owner = await newOwner('changes');
  ownerId = owner.ownerId;
  api = server.client(owner.writeKey);
  reader = server.client(owner.readKey);
  writeKeyId = owner.writeKey.split('_')[1] as string;
  readKeyId = owner.readKey.split('_')[1] as string;
});

interface Change {
  id: number;
  at: string;
  keyId: string;
  action: string;
  resource: { type: string; id: number };
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/** The whole log, newest first, page by page. */
async function allChanges(slug: string, limit = 100): Promise<Change[]> {
  const changes: Change[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
    const page = await reader.get(`/api/v1/projects/${slug}/changes${query}`);
    expect(page.status, page.text).toBe(200);
    changes.push(...page.body.changes);
    cursor = page.body.nextCursor;
  } while (cursor);
  return changes;
}

const summary = (changes: Change[]) => changes.map((c) => `${c.action} ${c.resource.type} ${c.resource.id}`);

describe('what the log records', () => {
  test('the creation is the first entry; then one entry per write of each resource, newest first', async () => {
    const project = await makeProject(api, { name: 'Logged' });
    const base = `/api/v1/projects/${project.slug}`;
    const feature = await makeFeature(api, project.slug, { name: 'SSO', basePrice: 1 });
    const other = await makeFeature(api, project.slug, { name: 'Audit' });
    const plan = await makePlan(api, project.slug, { name: 'Pro', features: [{ featureId: feature.id }] });
    expect((await api.put(base, { name: 'Logged 2' })).status).toBe(200);
    expect((await api.put(`${base}/features/${feature.id}`, { basePrice: 2 })).status).toBe(200);
    expect((await api.put(`${base}/plans/${plan.id}`, { isPopular: true })).status).toBe(200);
    const added = await api.post(`${base}/plans/${plan.id}/features`, { featureId: other.id, multiplier: 2 });
    expect(added.status).toBe(200);
    const assignment = added.body.features.find((f: { feature: { id: number } }) => f.feature.id === other.id);
    expect((await api.put(`${base}/plans/${plan.id}/features/${other.id}`, { multiplier: 3 })).status).toBe(200);
    expect((await api.delete(`${base}/plans/${plan.id}/features?featureId=${other.id}`)).status).toBe(200);
    const copy = await api.post(`${base}/plans/${plan.id}/duplicate`);
    expect((await api.delete(`${base}/plans/${copy.body.id}`)).status).toBe(200);
    // A cascade: the feature is assigned to the plan, and its delete is one entry.
    expect((await api.delete(`${base}/features/${feature.id}`)).status).toBe(200);
    // Writes that change nothing record nothing.
    expect((await api.put(`${base}/plans/${plan.id}`, { isPopular: true })).status).toBe(200);

    const changes = await allChanges(project.slug);
    expect(summary(changes).reverse()).toEqual([
      `create project ${project.id}`,
      `create feature ${feature.id}`,
      `create feature ${other.id}`,
      `create plan ${plan.id}`,
      `update project ${project.id}`,
      `update feature ${feature.id}`,
      `update plan ${plan.id}`,
      `create planFeature ${assignment.id}`,
      `update planFeature ${assignment.id}`,
      `delete planFeature ${assignment.id}`,
      `create plan ${copy.body.id}`,
      `delete plan ${copy.body.id}`,
      `delete feature ${feature.id}`,
    ]);
    const ids = changes.map((c) => c.id);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    for (const change of changes) {
      expect(change.keyId).toBe(writeKeyId);
      expect(Date.parse(change.at)).toBeGreaterThan(Date.now() - 120_000);
    }

    const byKey = (key: string) => changes.find((c) => summary([c])[0] === key) as Change;
    const created = byKey(`create project ${project.id}`);
    expect(created.before).toBeNull();
    expect(created.after).toMatchObject({ name: 'Logged', slug: project.slug, projectId: project.id });
    expect(created.after).not.toHaveProperty('features');
    expect(created.after).not.toHaveProperty('featureCount');
    expect(byKey(`update project ${project.id}`)).toMatchObject({
      before: { name: 'Logged' },
      after: { name: 'Logged 2' },
    });
    expect(byKey(`update feature ${feature.id}`)).toMatchObject({ before: { basePrice: 1 }, after: { basePrice: 2 } });
    expect(byKey(`create plan ${plan.id}`).after).toMatchObject({
      name: 'Pro',
      planFeatures: [{ featureId: feature.id, multiplier: 1 }],
    });
    expect(byKey(`update planFeature ${assignment.id}`)).toMatchObject({
      before: { multiplier: 2, planId: plan.id, featureId: other.id },
      after: { multiplier: 3 },
    });
    const deleted = byKey(`delete feature ${feature.id}`);
    expect(deleted.before).toMatchObject({ name: 'SSO', basePrice: 2 });
    expect(deleted.after).toBeNull();
    // No entry leaks the keys every item repeats.
    for (const change of changes) expect(JSON.stringify(change)).not.toContain(ownerId);
  });

  test('write-only secrets read "[set]" or null, never their value', async () => {
    const secret = 'sk_test_SecretValue1234567890';
    const webhook = 'whsec_WebhookSecret1234567890';
    const project = await makeProject(api, { paymentSecretKey: secret });
    const base = `/api/v1/projects/${project.slug}`;
    expect((await api.put(base, { paymentWebhookSecret: webhook })).status).toBe(200);
    expect((await api.put(base, { paymentSecretKey: null })).status).toBe(200);
    const [disconnected, webhookSet, created] = await allChanges(project.slug);
    expect(created?.after).toMatchObject({ paymentSecretKey: '[set]', paymentWebhookSecret: null });
    expect(webhookSet).toMatchObject({
      before: { paymentWebhookSecret: null },
      after: { paymentWebhookSecret: '[set]', paymentSecretKey: '[set]' },
    });
    expect(disconnected).toMatchObject({ before: { paymentSecretKey: '[set]' }, after: { paymentSecretKey: null } });
    const text = JSON.stringify(await allChanges(project.slug));
    for (const value of [secret, webhook, 'Sealed', 'sealed']) expect(text).not.toContain(value);
  });
});

describe('an entry never without its write, nor a write without its entry', () => {
  test('refused writes leave no entry: a 404, a stale If-Match', async () => {
    const project = await makeProject(api);
    const base = `/api/v1/projects/${project.slug}`;
    const before = await allChanges(project.slug);
    expect((await api.post(`${base}/plans`, { name: 'x', features: [{ featureId: 999999999 }] })).status).toBe(404);
    expect((await api.put(base, { name: 'y' }, { headers: { 'if-match': '"stale"' } })).status).toBe(412);
    expect(await allChanges(project.slug)).toEqual(before);
  });

  test('a write whose transaction is cancelled puts no entry, the project alive or gone', async () => {
    const project = await makeProject(api, { slug: 'cancelled-write' });
    const existing = await makeFeature(api, project.slug);
    const scope = { ownerId, slug: project.slug, shareId: project.shareId };
    const entryFor = (featureId: number) =>
      changeEntry(project.id, { keyId: writeKeyId }, { type: 'feature', id: featureId }, null, {});
    // Its feature create fails (the id is taken): the entry put beside it is cancelled too.
    const clash = await entryFor(existing.id);
    await expect(insertFeature(featureItem({ ...scope, featureId: existing.id }), 200, clash)).rejects.toThrow(
      'already exists',
    );
    const logged = async () => (await readChanges(project.id, undefined, 100)).items.map((item) => item.changeId);
    expect(await logged()).not.toContain(clash.changeId);
    expect(await logged()).toHaveLength(2);
    // The project went before it.
    const lateId = 8_500_000_000 + Math.floor(Math.random() * 1e8);
    const late = await entryFor(lateId);
    expect((await api.delete(`/api/v1/projects/${project.slug}`)).status).toBe(200);
    expect(await insertFeature(featureItem({ ...scope, featureId: lateId }), 200, late)).toBe('project_gone');
    expect(await logged()).not.toContain(late.changeId);
  });

  test('under concurrent writes, one entry per write that answered 2xx', async () => {
    const project = await makeProject(api);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        api.post(`/api/v1/projects/${project.slug}/features`, { name: `F${i}`, basePrice: i }),
      ),
    );
    const created = answers.filter((a) => a.status === 201).map((a) => a.body.id as number);
    expect(created).toHaveLength(12);
    const logged = (await allChanges(project.slug))
      .filter((c) => c.resource.type === 'feature')
      .map((c) => c.resource.id);
    expect(logged.sort()).toEqual(created.sort());
  });
});

describe('reading the log', () => {
  test('pages newest first with limit and cursor, every entry once; a bad page is 400', async () => {
    const project = await makeProject(api);
    for (let i = 0; i < 5; i++) await makeFeature(api, project.slug);
    const all = await allChanges(project.slug);
    expect(all).toHaveLength(6);
    const paged = await allChanges(project.slug, 2);
    expect(paged).toEqual(all);
    const first = await reader.get(`/api/v1/projects/${project.slug}/changes?limit=2`);
    expect(first.body.changes).toHaveLength(2);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const last = await reader.get(`/api/v1/projects/${project.slug}/changes?limit=6`);
    expect(last.body.nextCursor).toBeNull();
    const unpaged = await reader.get(`/api/v1/projects/${project.slug}/changes`);
    expect(unpaged.body.changes).toEqual(all);
    expect(unpaged.body.nextCursor).toBeNull();
    for (const query of ['limit=0', 'limit=101', 'cursor=nonsense']) {
      expect((await reader.get(`/api/v1/projects/${project.slug}/changes?${query}`)).status, query).toBe(400);
    }
  });

  test('a read key may read it; another owner, a missing project and a read key writing may not', async () => {
    const project = await makeProject(api);
    const other = await newOwner('changes-other');
    expect((await reader.get(`/api/v1/projects/${project.slug}/changes`)).status).toBe(200);
    expect((await server.client(other.writeKey).get(`/api/v1/projects/${project.slug}/changes`)).status).toBe(404);
    expect((await server.client(other.readKey).get(`/api/v1/projects/${project.slug}/changes`)).status).toBe(404);
    expect((await reader.get('/api/v1/projects/no-such-project/changes')).status).toBe(404);
    expect((await server.client(null).get(`/api/v1/projects/${project.slug}/changes`)).status).toBe(401);
    expect((await reader.post(`/api/v1/projects/${project.slug}/features`, { name: 'x', basePrice: 1 })).status).toBe(
      403,
    );
    const log = await allChanges(project.slug);
    expect(log.map((c) => c.keyId)).not.toContain(readKeyId);
  });

  test('entries are kept 90 days (the TTL attribute), outside the project partition its reads query', async () => {
    const project = await makeProject(api);
    await makeFeature(api, project.slug);
    const { items } = await readChanges(project.id, undefined, 100);
    expect(items).toHaveLength(2);
    const ninetyDays = 90 * 24 * 60 * 60;
    for (const item of items) {
      expect(item.expiresAt - Math.floor(Date.parse(item.at) / 1000)).toBe(ninetyDays);
    }
    const partition = await itemsOfProject(ownerId, project.slug, project.shareId);
    expect(partition.map(entityOf)).not.toContain('changeEntry');
  });

  test('deleted with the project: its log is swept, and a new project of the slug starts its own', async () => {
    const project = await makeProject(api, { slug: 'logged-and-gone' });
    await makeFeature(api, project.slug);
    expect((await readChanges(project.id, undefined, 100)).items).toHaveLength(2);
    expect((await api.delete(`/api/v1/projects/${project.slug}`)).status).toBe(200);
    expect((await reader.get(`/api/v1/projects/${project.slug}/changes`)).status).toBe(404);
    await sweepsFinished(ownerId);
    expect((await readChanges(project.id, undefined, 100)).items).toEqual([]);
    const again = await makeProject(api, { slug: 'logged-and-gone' });
    expect(summary(await allChanges(again.slug))).toEqual([`create project ${again.id}`]);
  });
});

describe('entry ids come from the clock, not a shared counter', () => {
  test('ids rise with time, above every id the counter gave', async () => {
    const project = await makeProject(api);
    const base = `/api/v1/projects/${project.slug}`;
    const startedAt = Date.now();
    await makeFeature(api, project.slug);
    const changes = await allChanges(project.slug);
    const ids = changes.map((c) => c.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    for (const id of ids) {
      expect(Number.isSafeInteger(id)).toBe(true);
      expect(id).toBeGreaterThan(1e12);
    }
    // The newest id is the clock's milliseconds × 1,000 plus an offset.
    expect(Math.floor((ids[0] as number) / 1000)).toBeGreaterThanOrEqual(startedAt);
    expect(Math.floor((ids[0] as number) / 1000)).toBeLessThanOrEqual(Date.now() + 1);
    expect((await api.put(`${base}/features/${changes[0]?.resource.id}`, { name: 'Renamed' })).status).toBe(200);
    expect((await allChanges(project.slug))[0]?.id).toBeGreaterThan(ids[0] as number);
  });

  test('an entry of the counter era (a small id) still lists after the newer ones', async () => {
    const project = await makeProject(api);
    const old = changeEntry(project.id, { keyId: writeKeyId }, { type: 'feature', id: 1 }, null, {});
    old.changeId = 42;
    await db().entities.changeEntry.create(old).go();
    await makeFeature(api, project.slug);
    const ids = (await allChanges(project.slug)).map((c) => c.id);
    expect(ids.at(-1)).toBe(42);
    expect(ids).toHaveLength(3);
  });

  test('an id another writer took is drawn again: the write commits, the stored entry is left as it was', async () => {
    const project = await makeProject(api);
    const scope = { ownerId, slug: project.slug, shareId: project.shareId };
    const first = await makeFeature(api, project.slug);
    const [taken] = await allChanges(project.slug);
    expect(taken?.resource).toEqual({ type: 'feature', id: first.id });
    const featureId = 9_100_000_000 + Math.floor(Math.random() * 1e8);
    const entry = changeEntry(project.id, { keyId: writeKeyId }, { type: 'feature', id: featureId }, null, {});
    entry.changeId = taken?.id as number;
    expect(await insertFeature(featureItem({ ...scope, featureId }), 200, entry)).toBe('created');
    expect(entry.changeId).not.toBe(taken?.id);
    const after = await allChanges(project.slug);
    expect(after.find((c) => c.id === taken?.id)).toEqual(taken);
    expect(after.find((c) => c.id === entry.changeId)?.resource).toEqual({ type: 'feature', id: featureId });
    expect(after).toHaveLength(3);
  });
});
