import { describe, expect, test } from 'vitest';
import { webhookEventTypes } from '#contract/enums.ts';
import { isPrivateAddress, urlRefusal } from '#domain/webhooks-out/url-rules.ts';
import { newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeProject } from '../fixtures/factories.ts';

const server = useLocalServer();

async function setUp() {
  const owner = await newOwner('hooks');
  const api = server.client(owner.writeKey);
  const { slug } = await makeProject(api);
  return { owner, api, slug, hooks: `/api/v1/projects/${slug}/webhook-endpoints` };
}

describe('webhook endpoints', () => {
  test('create shows the secret once; list hides it; all event types by default', async () => {
    const { api, hooks, owner } = await setUp();
    const created = await api.post(hooks, { url: 'https://example.com/hooks', description: 'app' });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(created.body.secret.slice(6), 'base64')).toHaveLength(24);
    expect(created.body.events).toEqual([...webhookEventTypes]);
    expect(created.body.disabledAt).toBeNull();
    const listed = await server.client(owner.readKey).get(hooks);
    expect(listed.status).toBe(200);
    expect(listed.body.webhookEndpoints).toEqual([
      {
        id: created.body.id,
        url: 'https://example.com/hooks',
        events: created.body.events,
        description: 'app',
        createdAt: created.body.createdAt,
        disabledAt: null,
      },
    ]);
    expect(listed.text).not.toContain('whsec_');
    const rotated = await api.post(`${hooks}/${created.body.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    expect((await api.delete(`${hooks}/${created.body.id}`)).body).toEqual({ success: true });
    expect((await api.get(hooks)).body.webhookEndpoints).toEqual([]);
    expect((await api.delete(`${hooks}/${created.body.id}`)).status).toBe(404);
    const log = await api.get(`/api/v1/projects/${hooks.split('/')[4]}/changes`);
    const entries = log.body.changes.filter(
      (c: { resource: { type: string } }) => c.resource.type === 'webhookEndpoint',
    );
    expect(entries.map((c: { action: string }) => c.action)).toEqual(['delete', 'update', 'create']);
    expect(JSON.stringify(entries)).not.toContain('whsec_');
  });

  test('event filters: kept in the canonical order; an unknown type is a 400 with a suggestion', async () => {
    const { api, hooks } = await setUp();
    const filtered = await api.post(hooks, {
      url: 'https://example.com/a',
      events: ['usage.limit_reached', 'subscription.created'],
    });
    expect(filtered.body.events).toEqual(['subscription.created', 'usage.limit_reached']);
    const typo = await api.post(hooks, { url: 'https://example.com/a', events: ['subscription.cancelled'] });
    expect(typo.status).toBe(400);
    expect(typo.body.error.code).toBe('validation_error');
    expect(typo.body.error.message).toContain('did you mean "subscription.canceled"?');
    expect((await api.post(hooks, { url: 'https://example.com/a', events: [] })).status).toBe(400);
    expect((await api.post(hooks, { url: 'https://example.com/a', evnts: [] })).body.error.message).toContain(
      'did you mean "events"?',
    );
  });

  test('URL rules: absolute, at most 2,048 characters, https; loopback http only as the stage allows', async () => {
    const { api, hooks } = await setUp();
    for (const url of [
      'example.com/hooks',
      'ftp://example.com/x',
      `https://example.com/${'a'.repeat(2_030)}`,
      'https://user:pw@example.com/x',
    ]) {
      const answer = await api.post(hooks, { url });
      expect(answer.status, url).toBe(400);
      expect(answer.body.error.details[0].path).toBe('url');
    }
    // The tests' stage allows loopback receivers (WEBHOOK_URLS=loopback), never other private hosts.
    expect((await api.post(hooks, { url: 'http://127.0.0.1:9/x' })).status).toBe(201);
    expect((await api.post(hooks, { url: 'http://10.0.0.1/x' })).status).toBe(400);
    expect((await api.post(hooks, { url: 'https://169.254.169.254/latest' })).status).toBe(400);
    // A deployed stage's rules.
    for (const url of ['http://127.0.0.1/x', 'https://localhost/x', 'https://[::1]/x', 'https://192.168.1.4/x']) {
      expect(urlRefusal(url, 'public'), url).toBeDefined();
    }
    expect(urlRefusal('https://hooks.example.com/x', 'public')).toBeUndefined();
    expect(isPrivateAddress('::ffff:10.1.2.3')).toBe(true);
    expect(isPrivateAddress('fe80::1')).toBe(true);
    expect(isPrivateAddress('8.8.8.8')).toBe(false);
  });

  test('at most 10 a project, also under concurrent creates; the eleventh is 409 limit_exceeded', async () => {
    const { api, hooks } = await setUp();
    const answers = await Promise.all(
      Array.from({ length: 14 }, (_, i) => api.post(hooks, { url: `https://example.com/${i}` })),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(10);
    const refused = answers.filter((a) => a.status !== 201);
    expect(refused.map((a) => [a.status, a.body.error.code])).toEqual(Array(4).fill([409, 'limit_exceeded']));
    expect((await api.get(hooks)).body.webhookEndpoints).toHaveLength(10);
    const [first] = (await api.get(hooks)).body.webhookEndpoints;
    await api.delete(`${hooks}/${first.id}`);
    expect((await api.post(hooks, { url: 'https://example.com/again' })).status).toBe(201);
  });

  test("tenancy: another owner's key is a 404; a read key is a 403 on writes", async () => {
    const { api, hooks, owner } = await setUp();
    const created = await api.post(hooks, { url: 'https://example.com/x' });
    const stranger = server.client((await newOwner('other')).writeKey);
    expect((await stranger.get(hooks)).status).toBe(404);
    expect((await stranger.post(hooks, { url: 'https://example.com/y' })).status).toBe(404);
    expect((await stranger.delete(`${hooks}/${created.body.id}`)).status).toBe(404);
    expect((await stranger.post(`${hooks}/${created.body.id}/rotate-secret`)).status).toBe(404);
    expect((await stranger.get(`${hooks}/${created.body.id}/deliveries`)).status).toBe(404);
    const reader = server.client(owner.readKey);
    expect((await reader.post(hooks, { url: 'https://example.com/y' })).status).toBe(403);
    expect((await reader.delete(`${hooks}/${created.body.id}`)).status).toBe(403);
    expect((await api.get(`${hooks}/abc/deliveries`)).status).toBe(404);
    expect((await api.post(`${hooks}/${created.body.id}/deliveries/dlv_nope/retry`)).status).toBe(404);
    expect((await api.get(`${hooks}/${created.body.id}/deliveries?cursor=zzz`)).status).toBe(400);
    expect((await api.get(`${hooks}/${created.body.id}/deliveries`)).body).toEqual({
      deliveries: [],
      nextCursor: null,
    });
  });
});
