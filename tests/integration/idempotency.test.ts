/**
 * Idempotency-Key on v1 POSTs (decisions.md, "Scripting v1 safely"), over real HTTP against
 * DynamoDB Local: replays, conflicts, what is kept and what is not, and concurrency.
 */
import { DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, test } from 'vitest';
import { createDocumentClient, dynamoOptions } from '#db/client.ts';
import { claimIdempotencyKey, readIdempotencyRecord } from '#db/idempotency.ts';
import { runtimeConfig } from '#shared/config.ts';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';

const server = useLocalServer();
let api: ApiClient;
let ownerId: string;
let counter = 0;
const newKey = () => `key-${Date.now()}-${++counter}`;

const withKey = (key: string) => ({ headers: { 'idempotency-key': key } });

async function projectNames(client: ApiClient): Promise<string[]> {
  const list = await client.get('/api/v1/projects');
  return list.body.projects.map((project: { name: string }) => project.name);
}

beforeAll(async () => {
  const owner = await newOwner('idempotency');
  ownerId = owner.ownerId;
  api = server.client(owner.writeKey);
});

describe('Idempotency-Key', () => {
  test('a repeat with the same body replays the first answer and creates nothing', async () => {
    const key = newKey();
    const first = await api.post('/api/v1/projects', { name: 'Once only' }, withKey(key));
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await api.post('/api/v1/projects', { name: 'Once only' }, withKey(key));
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await projectNames(api)).filter((name) => name === 'Once only')).toHaveLength(1);
  });

  test('bodies compare as parsed JSON: key order and whitespace do not matter', async () => {
    const key = newKey();
    const headers = { 'idempotency-key': key, 'content-type': 'application/json' };
    const first = await api.request('POST', '/api/v1/projects', {
      rawBody: '{"name":"Order","currency":"EUR"}',
      headers,
    });
    expect(first.status).toBe(201);
    const again = await api.request('POST', '/api/v1/projects', {
      rawBody: ' { "currency" : "EUR",\n "name": "Order" } ',
      headers,
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
  });

  test('the same key with another body, or on another route, is 409 conflict and creates nothing', async () => {
    const key = newKey();
    const first = await api.post('/api/v1/projects', { name: 'Body A' }, withKey(key));
    expect(first.status).toBe(201);
    const otherBody = await api.post('/api/v1/projects', { name: 'Body B' }, withKey(key));
    expect(otherBody.status).toBe(409);
    expect(otherBody.body.error.code).toBe('conflict');
    expect(otherBody.body.error.message).toMatch(/another body/);
    const otherRoute = await api.post(`/api/v1/projects/${first.body.slug}/features`, { name: 'Body A' }, withKey(key));
    expect(otherRoute.status).toBe(409);
    expect(otherRoute.body.error.message).toMatch(/POST \/api\/v1\/projects/);
    expect(await projectNames(api)).not.toContain('Body B');
    const features = await api.get(`/api/v1/projects/${first.body.slug}/features`);
    expect(features.body.features).toEqual([]);
  });

  test('a 400 is kept and replayed; a 409 is not, so a retry after fixing the cause runs', async () => {
    const invalidKey = newKey();
    const invalid = await api.post('/api/v1/projects', { name: '' }, withKey(invalidKey));
    expect(invalid.status).toBe(400);
    const replayed = await api.post('/api/v1/projects', { name: '' }, withKey(invalidKey));
    expect(replayed.status).toBe(400);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(invalid.body);

    const taken = await api.post('/api/v1/projects', { name: 'Slug holder', slug: `held-${counter}` });
    const conflictKey = newKey();
    const conflict = await api.post(
      '/api/v1/projects',
      { name: 'Wants the slug', slug: taken.body.slug },
      withKey(conflictKey),
    );
    expect(conflict.status).toBe(409);
    expect(await api.delete(`/api/v1/projects/${taken.body.slug}`)).toMatchObject({ status: 200 });
    const retried = await api.post(
      '/api/v1/projects',
      { name: 'Wants the slug', slug: taken.body.slug },
      withKey(conflictKey),
    );
    expect(retried.status, retried.text).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  test('20 concurrent requests with one key create exactly one resource', async () => {
    const key = newKey();
    const name = `Concurrent ${key}`;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => api.post('/api/v1/projects', { name }, withKey(key))),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(
      statuses.every((status) => status === 201 || status === 409),
      statuses.join(),
    ).toBe(true);
    const created = answers.filter((answer) => answer.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((answer) => answer.body.id)).size).toBe(1);
    for (const answer of answers.filter((a) => a.status === 409)) {
      expect(answer.body.error.message).toMatch(/still running/);
    }
    expect((await projectNames(api)).filter((n) => n === name)).toHaveLength(1);
  });

  test('keys belong to their owner: another owner with the same key gets its own resource', async () => {
    const key = newKey();
    const other = server.client((await newOwner('idempotency-other')).writeKey);
    const mine = await api.post('/api/v1/projects', { name: 'Shared key' }, withKey(key));
    const theirs = await other.post('/api/v1/projects', { name: 'Shared key' }, withKey(key));
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  test('a claim abandoned by a request that died is taken over once its lock has run out', async () => {
    const key = newKey();
    const now = Date.now();
    const claim = {
      ownerId,
      key,
      routeKey: 'POST /api/v1/projects',
      fingerprint: 'whatever',
      token: 'dead-request',
      lockedUntil: now - 1,
      expiresAt: Math.floor(now / 1000) + 3600,
    };
    expect(await claimIdempotencyKey(claim, now - 10)).toBe('claimed');
    const retried = await api.post('/api/v1/projects', { name: 'After a crash' }, withKey(key));
    expect(retried.status, retried.text).toBe(201);
    expect((await readIdempotencyRecord(ownerId, key))?.state).toBe('done');
  });

  test('a claim still running is 409 and leaves the claim alone', async () => {
    const key = newKey();
    const now = Date.now();
    const claim = {
      ownerId,
      key,
      routeKey: 'POST /api/v1/projects',
      fingerprint: 'whatever',
      token: 'live-request',
      lockedUntil: now + 60_000,
      expiresAt: Math.floor(now / 1000) + 3600,
    };
    expect(await claimIdempotencyKey(claim, now)).toBe('claimed');
    const response = await api.post('/api/v1/projects', { name: 'Too soon' }, withKey(key));
    expect(response.status).toBe(409);
    expect((await readIdempotencyRecord(ownerId, key))?.token).toBe('live-request');
  });

  test.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['not ASCII', 'clé'],
    ['a control character', 'a\tb'],
  ])('a key that is %s is 400', async (_what, key) => {
    const response = await api.request('POST', '/api/v1/projects', {
      body: { name: 'Bad key' },
      headers: { 'idempotency-key': key },
    });
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.details).toEqual([
      { path: 'Idempotency-Key', message: 'must be 1–255 printable ASCII characters' },
    ]);
  });

  test('without the header, POSTs behave as before', async () => {
    await api.post('/api/v1/projects', { name: 'Twice' });
    await api.post('/api/v1/projects', { name: 'Twice' });
    expect((await projectNames(api)).filter((name) => name === 'Twice')).toHaveLength(2);
  });

  test("the table's TTL attribute is on, so kept answers expire", async () => {
    const client = createDocumentClient(dynamoOptions(runtimeConfig()));
    const { TimeToLiveDescription } = await client.send(
      new DescribeTimeToLiveCommand({ TableName: runtimeConfig().TABLE_NAME }),
    );
    expect(TimeToLiveDescription?.AttributeName).toBe('expiresAt');
  });
});
