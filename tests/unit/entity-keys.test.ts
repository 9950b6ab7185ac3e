import { describe, expect, test } from 'vitest';
import { entities } from '#db/service.ts';
import { paymentRecordsKeyPrefix } from '#db/table.ts';
import { eventShard, usageKeys } from '#db/usage-item-keys.ts';
import { apiKeyItem, featureItem, planItem, projectItem } from '../fixtures/factories.ts';

const {
  apiKey: ApiKey,
  changeEntry: ChangeEntry,
  counter: Counter,
  customer: Customer,
  feature: Feature,
  featureHead: FeatureHead,
  checkoutSession: CheckoutSession,
  rateLimit: RateLimit,
  plan: Plan,
  project: Project,
  usage: UsageAggregate,
  usageEvent: UsageEvent,
  usageUnique: UsageUnique,
} = entities;

/**
 * The physical keys each entity writes, pinned. Stored items are found by these strings:
 * a change of composite, prefix, casing or padding would orphan every item already in a
 * table, so it must show up here first (and come with a migration).
 */
const table = { table: 'pricing-test' };

const keysOf = (params: { Item?: Record<string, unknown> }) =>
  Object.fromEntries(Object.entries(params.Item ?? {}).filter(([name]) => /^(pk|sk|gsi\d(pk|sk))$/.test(name)));

const scope = { ownerId: 'Owner-1', slug: 'acme', shareId: 'Share0000000000000000000001' };
const projectPk = '$pricing#ownerId_Owner-1#slug_acme';
const sharePk = '$pricing#shareId_Share0000000000000000000001';

describe('key shapes (ElectroDB .params(), no I/O)', () => {
  test('change entry: a partition per project id outside the payment prefix, sorted by entry id', () => {
    const entry = {
      projectId: 7,
      changeId: 42,
      at: '2026-01-01T00:00:00.000Z',
      keyId: 'abc123def456',
      action: 'update',
      resourceType: 'plan',
      resourceId: 3,
      before: {},
      after: {},
      expiresAt: 1,
    } as const;
    const { pk, sk } = keysOf(ChangeEntry.put(entry).params(table));
    expect({ pk, sk }).toEqual({
      pk: '$pricing#changeLog#projectId_000000000007',
      sk: '$changeEntry_1#changeId_000000000042',
    });
    expect(String(pk).startsWith(paymentRecordsKeyPrefix)).toBe(false);
  });

  test('customer: a partition per project id, sorted by the case-kept customer id', () => {
    const item = { projectId: 7, customerId: 'User_42@x', version: 1, createdAt: 'c', updatedAt: 'u' };
    expect(keysOf(Customer.create(item).params(table))).toEqual({
      pk: '$pricing#projectId_000000000007',
      sk: '$customer_1#customerId_User_42@x',
    });
  });

  test('usage: aggregates and markers beside the customers, event ids in 16 shards; raw writes use the same keys', () => {
    const aggregate = { projectId: 7, customerId: 'User_42@x', month: '2026-11', featureId: 5 };
    expect(keysOf(UsageAggregate.create({ ...aggregate, method: 'sum', amount: 1 }).params(table))).toEqual({
      pk: '$pricing#projectId_000000000007',
      sk: '$usage_1#customerId_User_42@x#month_2026-11#featureId_000000000005#method_sum',
    });
    expect(usageKeys.aggregate(7, 'User_42@x', '2026-11', { featureId: 5, method: 'unique_count' })).toEqual(
      keysOf(UsageAggregate.create({ ...aggregate, method: 'unique_count', amount: 1 }).params(table)),
    );
    const marker = { ...aggregate, property: 'p#1' };
    expect(keysOf(UsageUnique.create(marker).params(table))).toEqual({
      pk: '$pricing#projectId_000000000007',
      sk: '$usageunique_1#customerId_User_42@x#month_2026-11#featureId_000000000005#property_p#1',
    });
    expect(usageKeys.unique(7, 'User_42@x', '2026-11', 5, 'p#1')).toEqual(
      keysOf(UsageUnique.create(marker).params(table)),
    );
    const alert = { ...aggregate, threshold: 'reached' as const };
    expect(usageKeys.alert(7, 'User_42@x', '2026-11', 5, 'reached')).toEqual(
      keysOf(entities.usageAlert.create(alert).params(table)),
    );
    const shard = eventShard('evt_1');
    expect(shard).toBe(eventShard('evt_1'));
    expect(keysOf(UsageEvent.create({ projectId: 7, shard, eventId: 'evt_1', expiresAt: 1 }).params(table))).toEqual({
      pk: `$pricing#projectId_000000000007#shard_${shard}`,
      sk: '$usageevent_1#eventId_evt_1',
    });
    expect(usageKeys.event(7, 'evt_1')).toEqual(
      keysOf(UsageEvent.create({ projectId: 7, shard, eventId: 'evt_1', expiresAt: 1 }).params(table)),
    );
    const shards = new Set(Array.from({ length: 1000 }, (_, i) => eventShard(`evt_${i}`)));
    expect(shards.size).toBe(16);
  });

  test('project: its partition, the share index and the owner index', () => {
    expect(keysOf(Project.create(projectItem({ ...scope, projectId: 7 })).params(table))).toEqual({
      pk: projectPk,
      sk: '$projectData#project_1',
      gsi1pk: sharePk,
      gsi1sk: '$share#project_1',
      gsi2pk: '$pricing#ownerId_Owner-1',
      gsi2sk: '$project_1#projectId_000000000007',
    });
  });

  test('feature: in the project partition, sorted by zero-padded id', () => {
    expect(keysOf(Feature.create(featureItem({ ...scope, featureId: 42 })).params(table))).toEqual({
      pk: projectPk,
      sk: '$projectData#feature_1#featureId_000000000042',
      gsi1pk: sharePk,
      gsi1sk: '$share#feature_1#featureId_000000000042',
    });
  });

  test('feature head: one per project partition, sorting just before the features', () => {
    const head = keysOf(FeatureHead.put({ ...scope, projectId: 7 }).params(table));
    expect(head).toEqual({
      pk: projectPk,
      sk: '$projectData#featureHead_1',
      gsi1pk: sharePk,
      gsi1sk: '$share#featureHead_1',
    });
    // The part reads Query the range from the head to the last feature: nothing else of the
    // partition may sort inside it.
    const sks = [
      Feature.create(featureItem({ ...scope, featureId: 1 })).params(table).Item.sk,
      Plan.create(planItem({ ...scope, planId: 1 })).params(table).Item.sk,
      Project.create(projectItem({ ...scope, projectId: 7 })).params(table).Item.sk,
    ];
    const inRange = (sk: string) => sk >= (head.sk as string) && sk <= `$projectData#feature_1#featureId_\uffff`;
    expect(sks.map(inRange)).toEqual([true, false, false]);
  });

  test('plan: in the project partition, sorted by zero-padded id, its assignments in its item', () => {
    expect(keysOf(Plan.create(planItem({ ...scope, planId: 5 })).params(table))).toEqual({
      pk: projectPk,
      sk: '$projectData#plan_1#planId_000000000005',
      gsi1pk: sharePk,
      gsi1sk: '$share#plan_1#planId_000000000005',
    });
  });

  test('API key: by key id, and by owner on gsi2 (case kept)', () => {
    expect(keysOf(ApiKey.create(apiKeyItem({ keyId: 'abc123def456', ownerId: 'Owner-1' })).params(table))).toEqual({
      pk: '$pricing#keyId_abc123def456',
      sk: '$apiKey_1',
      gsi2pk: '$pricing#ownerId_Owner-1',
      gsi2sk: '$apiKey_1#keyId_abc123def456',
    });
  });

  test('counter: one item per name', () => {
    expect(Counter.update({ name: 'feature' }).add({ value: 1 }).params(table).Key).toEqual({
      pk: '$pricing#name_feature',
      sk: '$counter_1',
    });
  });

  test('payment records: one partition per project id, under the prefix IAM grants the payments function', () => {
    // One window per scope: the whole project's, and each client address's on it.
    expect(RateLimit.get({ projectId: 7, scope: 'project' }).params(table).Key).toEqual({
      pk: '$pricing#projectId_000000000007',
      sk: '$rateLimit_1#scope_project',
    });
    expect(RateLimit.get({ projectId: 7, scope: 'client#2001:db8::1' }).params(table).Key).toEqual({
      pk: '$pricing#projectId_000000000007',
      sk: '$rateLimit_1#scope_client#2001:db8::1',
    });
    const session = CheckoutSession.put({
      projectId: 7,
      sessionId: 'cs_test_AbC',
      createdAt: '2026-01-01T00:00:00.000Z',
      expiresAt: 1,
    }).params(table);
    // Stripe's ids keep their case.
    expect(keysOf(session)).toEqual({
      pk: '$pricing#projectId_000000000007',
      sk: '$checkoutSession_1#sessionId_cs_test_AbC',
    });
    for (const pk of [RateLimit.get({ projectId: 7, scope: 'project' }).params(table).Key.pk, session.Item.pk]) {
      expect(pk.startsWith(paymentRecordsKeyPrefix)).toBe(true);
    }
  });

  test('experiments: the experiment and the running slot in the project partition; counts in 16 shard partitions under the payment prefix', () => {
    const { experiment: Experiment, experimentSlot: Slot, experimentMark: Mark, experimentTally: Tally } = entities;
    const experiment = {
      ...scope,
      experimentId: 3,
      name: 'x',
      status: 'draft',
      variants: [],
      createdAt: 'c',
      updatedAt: 'u',
    } as const;
    expect(keysOf(Experiment.create(experiment).params(table))).toEqual({
      pk: projectPk,
      sk: '$projectData#experiment_1#experimentId_000000000003',
      gsi1pk: sharePk,
      gsi1sk: '$share#experiment_1#experimentId_000000000003',
    });
    expect(keysOf(Slot.create({ ...scope, experimentId: 3 }).params(table))).toMatchObject({
      pk: projectPk,
      sk: '$projectData#experimentSlot_1',
    });
    const mark = { projectId: 7, tallyShard: 5, experimentId: 3, kind: 'visitor', ref: 'Ada_1', variant: 'b' } as const;
    expect(keysOf(Mark.create(mark).params(table))).toEqual({
      pk: '$pricing#projectId_000000000007#tallyShard_5',
      sk: '$experimentMark_1#experimentId_000000000003#kind_visitor#ref_Ada_1',
    });
    const tally = Tally.update({ projectId: 7, tallyShard: 5, experimentId: 3, variant: 'b' })
      .add({ visitors: 1 })
      .params(table);
    expect(tally.Key).toEqual({
      pk: '$pricing#projectId_000000000007#tallyShard_5',
      sk: '$experimentTally_1#experimentId_000000000003#variant_b',
    });
    expect(tally.Key.pk.startsWith(paymentRecordsKeyPrefix)).toBe(true);
  });

  test('no other entity has a partition key under the payment records prefix', () => {
    const pks = [
      Project.create(projectItem({ ...scope, projectId: 7 })).params(table).Item.pk,
      ApiKey.create(apiKeyItem({ keyId: 'abc123def456', ownerId: 'Owner-1' })).params(table).Item.pk,
      Counter.update({ name: 'feature' }).add({ value: 1 }).params(table).Key.pk,
    ];
    for (const pk of pks) expect(pk.startsWith(paymentRecordsKeyPrefix), pk).toBe(false);
  });

  test('a read by key builds the same key as the write', () => {
    const key = { ownerId: scope.ownerId, slug: scope.slug, planId: 5 };
    expect(Plan.get(key).params(table).Key).toEqual({
      pk: projectPk,
      sk: Plan.create(planItem({ ...scope, planId: 5 })).params(table).Item.sk,
    });
  });
});
