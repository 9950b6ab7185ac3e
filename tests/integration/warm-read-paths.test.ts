/**
 * The warm reads read DynamoDB's AttributeValues through the low-level client
 * and build the items themselves (shared/db/raw-query.ts, shared/db/items.ts). Here, over one
 * real DynamoDB Local, they are held to the old path, ElectroDB's own reads through the
 * DocumentClient: the same items (values, types, attribute order), so the same answer bytes
 * and ETags for the whole project, the share page and the feature range, with varied data:
 * every entity of the project and share collections, optional attributes present and absent,
 * decimals, unicode, a map with a property no longer in the schema, a retired attribute, an
 * item of a deleted project still in the partition, numbers past 2^53 and NULLs.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, test } from 'vitest';
import { assignmentsIn } from '#db/plan-assignments.ts';
import { readFeatureList } from '#db/project-parts.ts';
import { readProjectPartition, readSharePartition } from '#db/projects.ts';
import { db, rawTable } from '#db/service.ts';
import type { ProjectKey, ProjectScope } from '#db/types.ts';
import { toFeatureView } from '#domain/features/view.ts';
import { toProjectView } from '#domain/projects/view.ts';
import { toShareView } from '#domain/share/share.ts';
import { etagOfJson } from '#domain/versions.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { featureItem, makeFeature, makePlan, makeProject, planItem } from '../fixtures/factories.ts';
import { entityOf, itemsOfProject, storeInProject } from '../fixtures/table.ts';

const server = useLocalServer();
let api: ApiClient;
let ownerId: string;

beforeAll(async () => {
  const owner = await newOwner('warm-paths');
  ownerId = owner.ownerId;
  api = server.client(owner.writeKey);
});

type Items = Record<string, Record<string, any>[]>;

/** As readProjectPartition shapes a collection's answer: the project, its children by alias + "s". */
function partitionOf(data: Items) {
  const { project: [project] = [], featureHead: _head, ...children } = data;
  if (!project) return undefined;
  const lists = Object.entries(children).map(([alias, items]) => [
    `${alias}s`,
    items.filter((item) => item.shareId === project.shareId),
  ]);
  const partition = { project, ...Object.fromEntries(lists) };
  // The plans' stored assignments, and the plans without their maps (as readProjectPartition gives them).
  partition.planFeatures = partition.plans.flatMap(assignmentsIn);
  partition.plans = partition.plans.map(({ assigned: _map, ...plan }: Record<string, unknown>) => plan);
  return partition;
}

/** The old path: ElectroDB's collection Queries and parse, through the DocumentClient. */
const old = {
  project: async (key: ProjectKey) =>
    partitionOf((await db().collections.projectData(key).go({ consistent: true, pages: 'all' })).data as Items),
  share: async (shareId: string) =>
    partitionOf((await db().collections.share({ shareId }).go({ pages: 'all' })).data as Items),
  features: async (key: ProjectKey) => {
    const { featureHead, feature } = db().entities;
    const { data: head } = await featureHead.get(key).go({ consistent: true });
    if (!head) return undefined;
    const { data } = await feature.query.projectData(key).go({ consistent: true, pages: 'all' });
    return { head, features: data.filter((item) => item.shareId === head.shareId) };
  },
};

/** Byte for byte (attribute order included) and value for value (types, absent vs undefined). */
function same(ours: unknown, theirs: unknown) {
  expect(theirs).toBeDefined();
  expect(JSON.stringify(ours, (_key, value) => (typeof value === 'bigint' ? `${value}n` : value))).toBe(
    JSON.stringify(theirs, (_key, value) => (typeof value === 'bigint' ? `${value}n` : value)),
  );
  expect(ours).toStrictEqual(theirs);
}

/** Sets (or with `value` undefined, removes) one attribute of a stored item, past every schema. */
async function storeRaw(item: Record<string, unknown>, attribute: string, value?: unknown) {
  const { client, table } = rawTable();
  await client.send(
    new UpdateCommand({
      TableName: table,
      Key: { pk: item.pk, sk: item.sk },
      UpdateExpression: value === undefined ? 'REMOVE #a' : 'SET #a = :v',
      ExpressionAttributeNames: { '#a': attribute },
      ...(value === undefined ? {} : { ExpressionAttributeValues: { ':v': value } }),
    }),
  );
}

/** A project with every entity of the collections, varied attributes, and a few stored oddities. */
async function variedProject() {
  const project = await makeProject(api, {
    name: 'Ünïcødé “quotes” \\ and 😀',
    description: 'Line\nbreak\ttab',
    pricingPageDescription: '',
    currency: 'EUR',
    annualDiscount: 0.175,
    annualDiscountEnabled: true,
    checkoutTestSuccessUrl: 'https://acme.example/ok',
    signupUrl: 'https://acme.example/signup',
    paymentSecretKey: `sk_test_${'x'.repeat(24)}`,
    theme: { primaryColor: '#FF0000', customCSS: '.card { color: red }', mutedTextColor: '#444444' },
  });
  const key = { ownerId, slug: project.slug as string };
  const scope: ProjectScope = { ...key, shareId: project.shareId };
  const events = await makeFeature(api, project.slug, {
    name: 'Events',
    description: 'Per month, métered',
    isCountable: true,
    usageCount: 1234.5678,
    condition: 'Up to',
    featureType: 'Limits',
    basePrice: 0.000001,
  });
  const sso = await makeFeature(api, project.slug, { name: 'SSO', basePrice: 99999.99 });
  const seats = await makeFeature(api, project.slug, { name: 'Seats', isCountable: true, usageCount: 3 });
  await api.put(`/api/v1/projects/${project.slug}/features/${seats.id}`, { description: 'renamed once' });
  await makePlan(api, project.slug, {
    name: 'Free',
    isFree: true,
    features: [{ featureId: events.id, multiplier: 1.1 }],
  });
  await makePlan(api, project.slug, {
    name: 'Hidden',
    isVisible: false,
    features: [{ featureId: sso.id }],
  });
  const pro = await makePlan(api, project.slug, {
    name: 'Pro',
    basePrice: 49.5,
    isPopular: true,
    features: [
      { featureId: events.id, multiplier: 10 },
      { featureId: sso.id, multiplier: 0.25 },
      { featureId: seats.id, multiplier: 3 },
    ],
  });
  await api.put(`/api/v1/projects/${project.slug}/plans/${pro.id}`, { freemiumDay: 14, perUserMultiplier: 0.5 });
  // Stored oddities: a map property the schema no longer names, a retired attribute, a feature
  // from before `version`, and a deleted project's leftovers waiting for their sweep.
  await storeInProject(scope, 'theme', 'retiredThemeProperty', 'x');
  const stored = await itemsOfProject(ownerId, project.slug, project.shareId);
  const sample = (entity: string) => stored.find((item) => entityOf(item) === entity) as Record<string, unknown>;
  await storeRaw(sample('plan'), 'retiredField', { nested: [1, 'two', null] });
  await storeRaw(sample('feature'), 'version');
  const leftover = { ...scope, shareId: `${project.shareId}Gone`, featureId: 999_999_999 };
  await db()
    .entities.feature.put(featureItem({ ...leftover, name: 'Gone' }))
    .go();
  await db()
    .entities.plan.put(
      planItem({
        ...leftover,
        planId: 999_999_998,
        assigned: { [leftover.featureId]: { i: 888_888_888, m: 2, c: 'x' } },
      }),
    )
    .go();
  return { project, key };
}

describe('warm reads from AttributeValues against ElectroDB through the DocumentClient', () => {
  let project: { slug: string; shareId: string };
  let key: ProjectKey;
  beforeAll(async () => {
    ({ project, key } = await variedProject());
    await api.put(`/api/v1/projects/${project.slug}`, { isActive: true });
  });

  test('the whole project, the share collection and the feature range: the same items', async () => {
    const partition = await readProjectPartition(key);
    same(partition, await old.project(key));
    // Every entity of the collections is in it, the oddities included.
    expect(partition?.features.length).toBe(3);
    expect(partition?.plans.length).toBe(3);
    expect(partition?.planFeatures.length).toBe(5);
    expect(partition?.project.theme).not.toHaveProperty('retiredThemeProperty');
    same(await readSharePartition(project.shareId), await old.share(project.shareId));
    same(await readFeatureList(key), await old.features(key));
  });

  test('GET project, GET features and GET share: the old path’s bytes and ETags', async () => {
    const base = `/api/v1/projects/${project.slug}`;
    const expected = {
      [base]: toProjectView((await old.project(key)) as never, server.url),
      [`${base}/features`]: {
        features: ((await old.features(key))?.features ?? [])
          .sort((a, b) => a.featureId - b.featureId)
          .map(toFeatureView),
      },
      [`/api/share/${project.shareId}`]: toShareView((await old.share(project.shareId)) as never),
    };
    for (const [path, view] of Object.entries(expected)) {
      // The bytes as the action makes them, before any coding.
      const response = await api.get(path, { headers: { 'accept-encoding': 'identity' } });
      expect(response.status, response.text).toBe(200);
      const json = JSON.stringify(view);
      expect(response.text).toBe(json);
      expect(response.headers.get('etag')).toBe(etagOfJson(json));
    }
  });

  test('numbers past 2^53, NULLs and other stored types: what the DocumentClient and ElectroDB give', async () => {
    const stored = await itemsOfProject(ownerId, project.slug, project.shareId);
    const ofEntity = (entity: string) =>
      stored.filter((item) => entityOf(item) === entity && item.shareId === project.shareId);
    const [first, second, third] = ofEntity('feature') as Record<string, unknown>[];
    const [plan] = ofEntity('plan') as Record<string, unknown>[];
    // A NUMBER past 2^53 reads as the nearest double (shared/db/numbers.ts), a decimal one as a number, NULL as null; a string
    // attribute holding a number, a list or a set, and a map holding a string, as stored.
    await storeRaw(first as Record<string, unknown>, 'usageCount', 12345678901234567890n);
    await storeRaw(first as Record<string, unknown>, 'description', null);
    await storeRaw(second as Record<string, unknown>, 'countPrice', -9007199254740993n);
    await storeRaw(second as Record<string, unknown>, 'condition', 42);
    await storeRaw(third as Record<string, unknown>, 'name', new Set(['a', 'b']));
    await storeRaw(third as Record<string, unknown>, 'description', ['x', 1, true, null, { m: 2 }]);
    await storeRaw(plan as Record<string, unknown>, 'isFree', null);
    await storeRaw(plan as Record<string, unknown>, 'basePrice', 1e-30);
    const head = ofEntity('project')[0] as Record<string, unknown>;
    await storeRaw(head, 'theme', 'not a map');
    const partition = await readProjectPartition(key);
    same(partition, await old.project(key));
    expect(partition?.features.find((f) => f.description === null)?.usageCount).toBe(Number(12345678901234567890n));
    same(await readSharePartition(project.shareId), await old.share(project.shareId));
    same(await readFeatureList(key), await old.features(key));
  });
});
