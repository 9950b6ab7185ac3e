import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ConfigError } from '#shared/config.ts';
import { canonicalContext } from '#shared/secrets/envelope.ts';
import { type Keyring, keyringFor, localKeyring, SecretUnreadableError } from '#shared/secrets/keyring.ts';
import { kmsKeyringFor } from '#shared/secrets/kms-keyring.ts';
import { ensureLocalKeyFile, readLocalKeyFile } from '#shared/secrets/local-key-file.ts';
import { rejection } from '../fixtures/rejection.ts';

const SECRET = 'sk_test_51NzQvXyZaBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789';
const context = { projectId: 'prj_1', purpose: 'stripe-secret-key' };

async function expectUnreadable(promise: Promise<unknown>, secrets: string[] = [SECRET]): Promise<Error> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(SecretUnreadableError);
  expect(error.name).toBe('SecretUnreadableError');
  for (const secret of secrets) {
    expect(error.message).not.toContain(secret);
    expect(String(error.stack)).not.toContain(secret);
  }
  return error;
}

/** Flips one bit of one base64url part of a sealed value, keeping it well-formed. */
function tamper(sealed: string, part: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[part] ?? '', 'base64url');
  bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
  parts[part] = bytes.toString('base64url');
  return parts.join('.');
}

describe('localKeyring', () => {
  const master = randomBytes(32);
  const ring = localKeyring(master);

  test('round trip', async () => {
    const sealed = await ring.seal(SECRET, context);
    expect(await ring.open(sealed, context)).toBe(SECRET);
  });

  test.each([
    ['unicode', 'ключ 🔑 秘密 — ü'],
    ['empty', ''],
    ['long', 'rk_live_'.padEnd(5000, 'x')],
  ])('round trip: %s', async (_, value) => {
    expect(await ring.open(await ring.seal(value, context), context)).toBe(value);
  });

  test('the sealed value is storable ASCII in the documented format and does not contain the secret', async () => {
    const sealed = await ring.seal(SECRET, context);
    expect(sealed).toMatch(/^v1\.local\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(SECRET);
    expect(sealed).not.toContain('sk_test');
  });

  test('two seals of the same value differ', async () => {
    const [a, b] = await Promise.all([ring.seal(SECRET, context), ring.seal(SECRET, context)]);
    expect(a).not.toBe(b);
    const [, , keyA, ivA, ctA] = a.split('.');
    const [, , keyB, ivB, ctB] = b.split('.');
    expect(keyA).not.toBe(keyB);
    expect(ivA).not.toBe(ivB);
    expect(ctA).not.toBe(ctB);
  });

  test('the context is canonical: key order does not matter', async () => {
    const sealed = await ring.seal(SECRET, { a: '1', b: '2', 10: 'x' });
    expect(await ring.open(sealed, { 10: 'x', b: '2', a: '1' })).toBe(SECRET);
    expect(canonicalContext({ b: '2', 10: 'x', a: '1' })).toBe('{"10":"x","a":"1","b":"2"}');
  });

  test.each([
    ['another project', { ...context, projectId: 'prj_2' }],
    ['an extra entry', { ...context, extra: '' }],
    ['a missing entry', { projectId: 'prj_1' }],
    ['no context', {}],
  ])('another context does not open: %s', async (_, other) => {
    const sealed = await ring.seal(SECRET, context);
    const error = await expectUnreadable(ring.open(sealed, other));
    expect(error.message).toMatch(/master key and encryption context/);
  });

  test('another master key does not open', async () => {
    const sealed = await ring.seal(SECRET, context);
    await expectUnreadable(localKeyring(randomBytes(32)).open(sealed, context));
  });

  test.each([
    ['wrapped key', 2],
    ['iv', 3],
    ['ciphertext', 4],
  ])('a tampered %s does not open', async (_, part) => {
    const sealed = await ring.seal(SECRET, context);
    await expectUnreadable(ring.open(tamper(sealed, part), context));
  });

  test('a truncated tag does not open', async () => {
    const sealed = await ring.seal(SECRET, context);
    const parts = sealed.split('.');
    parts[4] = Buffer.from(parts[4] ?? '', 'base64url')
      .subarray(0, -4)
      .toString('base64url');
    await expectUnreadable(ring.open(parts.join('.'), context));
  });

  test.each([
    ['empty', ''],
    ['a plaintext key stored by mistake', SECRET],
    ['a dotted plaintext', `${SECRET}.${SECRET}.${SECRET}.${SECRET}.${SECRET}`],
    ['too few parts', 'v1.local.abc.def'],
    ['too many parts', 'v1.local.a.b.c.d'],
    ['unknown kind', 'v1.vault.aaaa.bbbbbbbbbbbbbbbb.cccccccccccccccccccccc'],
    ['not base64url', 'v1.local.a+b/.bbbbbbbbbbbbbbbb.cccccccccccccccccccccc'],
    ['short iv', 'v1.local.aaaa.bbbb.cccccccccccccccccccccc'],
  ])('a malformed value is unreadable and not quoted: %s', async (_, bad) => {
    const error = await expectUnreadable(ring.open(bad, context), [SECRET, ...(bad ? [bad] : [])]);
    expect(error.message).toMatch(/malformed/);
  });

  test('another format version says so', async () => {
    const sealed = (await ring.seal(SECRET, context)).replace(/^v1\./, 'v2.');
    const error = await expectUnreadable(ring.open(sealed, context));
    expect(error.message).toMatch(/unsupported format version/);
  });

  test('a value sealed by KMS names its kind', async () => {
    const sealed = (await ring.seal(SECRET, context)).replace(/^v1\.local\./, 'v1.kms.');
    const error = await expectUnreadable(ring.open(sealed, context));
    expect(error.message).toMatch(/sealed by a kms keyring .* this local keyring/);
  });

  test('the master key is copied: zeroing the caller’s buffer changes nothing', async () => {
    const key = randomBytes(32);
    const own = localKeyring(key);
    const sealed = await own.seal(SECRET, context);
    key.fill(0);
    expect(await own.open(sealed, context)).toBe(SECRET);
  });

  test('rejects a master key that is not 32 bytes', () => {
    expect(() => localKeyring(randomBytes(16))).toThrow(RangeError);
  });
});

describe('local key file', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'keyring-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('created on first start with mode 0600, then reused', async () => {
    const dataDir = join(dir, 'first', 'nested');
    const first = await ensureLocalKeyFile(dataDir);
    expect(first).toEqual({ path: join(dataDir, 'payment-keys.key'), created: true });
    const text = await readFile(first.path, 'utf8');
    expect(text).toMatch(/^[A-Za-z0-9+/]{43}=\n$/);
    if (process.platform !== 'win32') expect((await stat(first.path)).mode & 0o777).toBe(0o600);

    const second = await ensureLocalKeyFile(dataDir);
    expect(second).toEqual({ path: first.path, created: false });
    expect(await readFile(first.path, 'utf8')).toBe(text);
    expect(readLocalKeyFile(first.path)).toEqual(Buffer.from(text.trim(), 'base64'));
  });

  test('concurrent first starts agree on one key', async () => {
    const dataDir = join(dir, 'race');
    const results = await Promise.all(Array.from({ length: 8 }, () => ensureLocalKeyFile(dataDir)));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const key = readLocalKeyFile(join(dataDir, 'payment-keys.key'));
    expect(key).toHaveLength(32);
  });

  test.skipIf(process.platform === 'win32')('warns about a file others can read, and still uses it', async () => {
    const dataDir = join(dir, 'open-mode');
    const { path } = await ensureLocalKeyFile(dataDir);
    await chmod(path, 0o644);
    const again = await ensureLocalKeyFile(dataDir);
    expect(again.created).toBe(false);
    expect(again.warning).toContain(`chmod 600 ${path}`);
  });

  test('rejects a corrupt file without quoting it', async () => {
    const dataDir = join(dir, 'corrupt');
    const path = join(dataDir, 'payment-keys.key');
    const content = Buffer.from('not the key you are looking for').toString('base64');
    await ensureLocalKeyFile(dataDir);
    await writeFile(path, `${content}\n`, { mode: 0o600 });
    const error = await rejection(ensureLocalKeyFile(dataDir));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain(path);
    expect(error.message).not.toContain(content);
    expect(() => readLocalKeyFile(path)).toThrow(ConfigError);
  });

  test('readLocalKeyFile: a missing file says how to get one', () => {
    const path = join(dir, 'missing', 'payment-keys.key');
    expect(() => readLocalKeyFile(path)).toThrow(ConfigError);
    expect(() => readLocalKeyFile(path)).toThrow(/does not exist.*npm start creates one.*PAYMENT_KMS_KEY_ID/);
  });

  test('readLocalKeyFile: a directory is not readable as a key', () => {
    expect(() => readLocalKeyFile(dir)).toThrow(/cannot be read \(EISDIR\)/);
  });

  test.each([
    ['empty', ''],
    ['16 bytes', randomBytes(16).toString('base64')],
    ['33 bytes', randomBytes(33).toString('base64')],
    ['hex', randomBytes(32).toString('hex')],
  ])('readLocalKeyFile: rejects %s content', async (name, content) => {
    const path = join(dir, `bad-${name}.key`);
    await writeFile(path, content);
    expect(() => readLocalKeyFile(path)).toThrow(ConfigError);
    expect(() => readLocalKeyFile(path)).toThrow(/does not hold a base64-encoded 32-byte key/);
  });
});

describe('keyringFor(config)', () => {
  const none = { PAYMENT_KMS_KEY_ID: undefined, PAYMENT_KEY_FILE: undefined, AWS_REGION: 'us-east-1' };

  test('the composition root hands the domain the keyring it was given, and no other', async () => {
    const { compose } = await import('#shared/composition.ts');
    const { parseRuntimeConfig } = await import('#shared/config.ts');
    const mine: Keyring = localKeyring(randomBytes(32));
    const app = compose(parseRuntimeConfig({ LOG_LEVEL: 'silent' }), { keyring: () => mine });
    expect(app.ports.keyring).toBe(mine);
    const sealed = await app.ports.keyring.seal(SECRET, context);
    expect(await mine.open(sealed, context)).toBe(SECRET);
    // Without a keyring of its own, the configuration names no key here.
    expect(() => keyringFor(none)).toThrow(/payment keys need/);
  });

  test('without configuration: a one-line ConfigError naming both variables', () => {
    expect(() => keyringFor(none)).toThrow(ConfigError);
    expect(() => keyringFor(none)).toThrow(
      'Invalid configuration: payment keys need PAYMENT_KMS_KEY_ID (a KMS key) or PAYMENT_KEY_FILE (a local key file)',
    );
  });

  test('PAYMENT_KEY_FILE: a local keyring under that file’s key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'keyring-config-'));
    try {
      const { path } = await ensureLocalKeyFile(dir);
      const ring = keyringFor({ ...none, PAYMENT_KEY_FILE: path });
      const sealed = await ring.seal(SECRET, context);
      expect(await localKeyring(readLocalKeyFile(path)).open(sealed, context)).toBe(SECRET);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("kmsKeyringFor(config), the deployed functions' keyring", () => {
  test('a KMS key only: without PAYMENT_KMS_KEY_ID a one-line ConfigError, even with a key file', () => {
    const file = { PAYMENT_KMS_KEY_ID: undefined, PAYMENT_KEY_FILE: '/tmp/payment-keys.key', AWS_REGION: 'us-east-1' };
    expect(() => kmsKeyringFor(file)).toThrow(ConfigError);
    expect(() => kmsKeyringFor(file)).toThrow(
      'Invalid configuration: payment keys need PAYMENT_KMS_KEY_ID (a KMS key) in a deployed function',
    );
  });

  test('with PAYMENT_KMS_KEY_ID: a KMS keyring, as keyringFor builds it (nothing called before the first seal)', () => {
    const ring = kmsKeyringFor({ PAYMENT_KMS_KEY_ID: 'alias/test', AWS_REGION: 'us-east-1' });
    expect(typeof ring.seal).toBe('function');
    expect(typeof ring.open).toBe('function');
  });
});
