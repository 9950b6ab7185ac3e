import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '#dev/dynamodb-local.ts';
import { useLocalServer } from '../fixtures/api.ts';
import { runCli } from '../fixtures/cli.ts';

const KEY_PATTERN = /^ppk_([a-z0-9]{12})_([A-Za-z0-9]{32})$/;
const ANY_KEY = /ppk_[a-z0-9]{12}_[A-Za-z0-9]{32}/g;
const SUBPROCESS = 30_000;

const cli = runCli;

const owner = () => `cli-${randomUUID().slice(0, 8)}`;
const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

interface CreatedJson {
  key: string;
  id: string;
  ownerId: string;
  permission: string;
}

async function createKey(ownerId: string, permission = 'read_write', extra: string[] = []): Promise<CreatedJson> {
  const result = await cli(['keys', 'create', '--owner', ownerId, '--permission', permission, '--json', ...extra]);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return JSON.parse(result.stdout) as CreatedJson;
}

describe('operator CLI (scripts/cli.ts)', () => {
  const api = useLocalServer();

  it(
    'keys create --json prints one JSON line with the new key, and the key works against the API',
    async () => {
      const ownerId = owner();
      const result = await cli(['keys', 'create', '--owner', ownerId, '--permission', 'read_write', '--json']);

      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      const output = lines(result.stdout);
      expect(output).toHaveLength(1);
      const created = JSON.parse(output[0] ?? '') as Record<string, unknown>;
      expect(Object.keys(created).sort()).toEqual(['id', 'key', 'ownerId', 'permission']);
      expect(created.key).toMatch(KEY_PATTERN);
      expect(created.ownerId).toBe(ownerId);
      expect(created.permission).toBe('read_write');
      expect(KEY_PATTERN.exec(String(created.key))?.[1]).toBe(created.id);

      const response = await api.client(String(created.key)).get('/api/v1/projects');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ projects: [] });

      // read_write really is read_write: it may create, and the project lands under this owner.
      const post = await api.client(String(created.key)).post('/api/v1/projects', { name: 'From the CLI' });
      expect(post.status).toBe(201);
    },
    SUBPROCESS,
  );

  it(
    'keys create without --json prints the key exactly once, and that key works',
    async () => {
      const ownerId = owner();
      const result = await cli(['keys', 'create', '--owner', ownerId, '--permission', 'read', '--name', 'Dashboard']);

      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      const keys = result.stdout.match(ANY_KEY) ?? [];
      expect(keys).toHaveLength(1);
      const key = keys[0] ?? '';
      const keyId = KEY_PATTERN.exec(key)?.[1] ?? '';
      expect(result.stdout).toContain(keyId);
      expect(result.stdout).toContain(ownerId);
      // The key stands on a line of its own, so it can be copied without surrounding text.
      expect(lines(result.stdout)).toContain(key);

      const read = await api.client(key).get('/api/v1/projects');
      expect(read.status).toBe(200);
      const write = await api.client(key).post('/api/v1/projects', { name: 'Nope' });
      expect(write.status).toBe(403);
    },
    SUBPROCESS,
  );

  it(
    'keys list shows ids and permissions of the owner, never a secret or its hash',
    async () => {
      const ownerId = owner();
      const [first, second, other] = await Promise.all([
        createKey(ownerId, 'read_write', ['--name', 'CI']),
        createKey(ownerId, 'read'),
        createKey(owner(), 'read'),
      ]);
      const secrets = [first, second].map((k) => KEY_PATTERN.exec(k.key)?.[2] ?? '');
      expect(secrets.every((s) => s.length === 32)).toBe(true);

      const json = await cli(['keys', 'list', '--owner', ownerId, '--json']);
      expect(json.stderr).toBe('');
      expect(json.status).toBe(0);
      expect(lines(json.stdout)).toHaveLength(1);
      const listed = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
      expect(listed.map((k) => [k.id, k.permission]).sort()).toEqual(
        [
          [first.id, 'read_write'],
          [second.id, 'read'],
        ].sort(),
      );
      expect(listed.find((k) => k.id === first.id)).toMatchObject({ name: 'CI', revokedAt: null });
      expect(json.stdout).not.toContain(other.id);
      for (const item of listed) expect(Object.keys(item).filter((name) => /secret|hash/i.test(name))).toEqual([]);

      const text = await cli(['keys', 'list', '--owner', ownerId]);
      expect(text.stderr).toBe('');
      expect(text.status).toBe(0);
      expect(text.stdout).toContain(first.id);
      expect(text.stdout).toContain(second.id);

      for (const output of [json.stdout, text.stdout]) {
        expect(output).not.toMatch(ANY_KEY);
        for (const secret of secrets) {
          expect(output).not.toContain(secret);
          expect(output).not.toContain(sha256(secret));
        }
      }
    },
    SUBPROCESS,
  );

  it(
    'keys revoke makes the key fail with 401 on its next request',
    async () => {
      const ownerId = owner();
      const [kept, revoked] = await Promise.all([createKey(ownerId, 'read'), createKey(ownerId, 'read_write')]);

      const result = await cli(['keys', 'revoke', revoked.id]);
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      expect(result.stdout).toContain(revoked.id);

      // First use of the revoked key: nothing about it is cached in the server.
      const denied = await api.client(revoked.key).get('/api/v1/projects');
      expect(denied.status).toBe(401);
      const allowed = await api.client(kept.key).get('/api/v1/projects');
      expect(allowed.status).toBe(200);

      const list = await cli(['keys', 'list', '--owner', ownerId, '--json']);
      expect(list.status).toBe(0);
      const listed = JSON.parse(list.stdout) as Array<{ id: string; revokedAt: string | null }>;
      expect(listed.find((k) => k.id === revoked.id)?.revokedAt).toEqual(expect.any(String));
      expect(listed.find((k) => k.id === kept.id)?.revokedAt).toBeNull();
    },
    SUBPROCESS,
  );

  describe('bad input', () => {
    it(
      'an unknown permission exits 1 with a message naming the permission, and creates nothing',
      async () => {
        const ownerId = owner();
        const result = await cli(['keys', 'create', '--owner', ownerId, '--permission', 'admin', '--json']);

        expect(result.status).toBe(1);
        expect(result.stdout).toBe('');
        expect(result.stderr).toMatch(/permission/);
        expect(lines(result.stderr)).toHaveLength(1);

        const list = await cli(['keys', 'list', '--owner', ownerId, '--json']);
        expect(list.status).toBe(0);
        expect(JSON.parse(list.stdout)).toEqual([]);
      },
      SUBPROCESS,
    );

    it(
      'a missing --owner exits 2 with the usage',
      async () => {
        const result = await cli(['keys', 'create', '--permission', 'read']);

        expect(result.status).toBe(2);
        expect(result.stdout).toBe('');
        expect(result.stderr).toContain('--owner');
        expect(result.stderr).toContain('Usage:');
        expect(result.stderr).not.toMatch(ANY_KEY);
      },
      SUBPROCESS,
    );

    it(
      'an unknown option exits 2 with the usage',
      async () => {
        const result = await cli(['keys', 'create', '--owner', owner(), '--permission', 'read', '--frobnicate']);

        expect(result.status).toBe(2);
        expect(result.stdout).toBe('');
        expect(result.stderr).toContain('--frobnicate');
        expect(result.stderr).toContain('Usage:');
      },
      SUBPROCESS,
    );

    it(
      'revoking an unknown key id exits 1 and names the id',
      async () => {
        const result = await cli(['keys', 'revoke', 'zzzzzzzzzzzz']);

        expect(result.status).toBe(1);
        expect(result.stdout).toBe('');
        expect(result.stderr).toContain('zzzzzzzzzzzz');
        expect(lines(result.stderr)).toHaveLength(1);
      },
      SUBPROCESS,
    );

    it(
      'an unreachable database exits 1 with one line that points to npm start',
      async () => {
        const endpoint = `http://127.0.0.1:${await freePort()}`;
        const result = await cli(['keys', 'list', '--owner', owner()], { DYNAMODB_ENDPOINT: endpoint });

        expect(result.status).toBe(1);
        expect(result.stdout).toBe('');
        expect(lines(result.stderr)).toHaveLength(1);
        expect(result.stderr).toContain('npm start');
        expect(result.stderr).toContain(endpoint);
      },
      SUBPROCESS,
    );

    it(
      'without an npm start’s credential for DYNAMODB_PORT and DATA_DIR, exits 1 with one line that points to npm start',
      async () => {
        const dataDir = mkdtempSync(join(tmpdir(), 'pricing-cli-'));
        try {
          const result = await cli(['keys', 'list', '--owner', owner()], {
            DYNAMODB_ENDPOINT: undefined,
            DYNAMODB_CREDENTIAL_FILE: undefined,
            DYNAMODB_PORT: String(await freePort()),
            DATA_DIR: dataDir,
          });
          expect(result.status).toBe(1);
          expect(result.stdout).toBe('');
          expect(lines(result.stderr)).toHaveLength(1);
          expect(result.stderr).toContain('npm start');
          expect(result.stderr).toContain(dataDir);
        } finally {
          rmSync(dataDir, { recursive: true, force: true });
        }
      },
      SUBPROCESS,
    );

    it(
      '--aws refuses to guess the table or the region of a deployed stage',
      async () => {
        const noTable = await cli(['--aws', 'keys', 'list', '--owner', owner()], {
          DYNAMODB_ENDPOINT: undefined,
          TABLE_NAME: undefined,
          AWS_REGION: 'eu-west-1',
        });
        expect(noTable.status).toBe(2);
        expect(noTable.stderr).toContain('TABLE_NAME');
        const noRegion = await cli(['--aws', 'keys', 'list', '--owner', owner()], {
          DYNAMODB_ENDPOINT: undefined,
          TABLE_NAME: 'Pricing-prod-Data-TableCD117FA1-ABC',
          AWS_REGION: undefined,
        });
        expect(noRegion.status).toBe(2);
        expect(noRegion.stderr).toContain('AWS_REGION');
        const both = await cli(['--aws', 'keys', 'list', '--owner', owner()]);
        expect(both.status).toBe(2);
        expect(both.stderr).toContain('DYNAMODB_ENDPOINT');
      },
      SUBPROCESS,
    );
  });
});
