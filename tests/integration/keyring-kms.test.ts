import { randomBytes } from 'node:crypto';
import {
  DecryptCommand,
  GenerateDataKeyCommand,
  InvalidCiphertextException,
  KMSClient,
  NotFoundException,
} from '@aws-sdk/client-kms';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { localKeyring, SecretUnreadableError } from '#shared/secrets/keyring.ts';
import { kmsKeyring } from '#shared/secrets/kms-keyring.ts';
import { type FakeKms, startFakeKms } from '../fixtures/fake-kms.ts';
import { rejection } from '../fixtures/rejection.ts';

// Built at run time: no file in git may hold something shaped like a live Stripe key.
const SECRET = `sk_live_${randomBytes(24).toString('hex')}`;
const context = { projectId: 'prj_kms', purpose: 'stripe-secret-key' };

let fake: FakeKms;
let client: KMSClient;

const clientOptions = () => ({
  endpoint: fake.url,
  region: 'us-east-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
});

beforeAll(async () => {
  fake = await startFakeKms();
  client = new KMSClient(clientOptions());
});

afterAll(async () => {
  client.destroy();
  await fake.close();
});

afterEach(() => {
  fake.reset();
  vi.useRealTimers();
});

const targets = () => fake.calls.map((call) => call.target);

describe('fake KMS speaks what the SDK expects', () => {
  test('errors arrive as the SDK’s modelled exception classes', async () => {
    const garbage = await rejection(client.send(new DecryptCommand({ CiphertextBlob: Buffer.from('garbage') })));
    expect(garbage).toBeInstanceOf(InvalidCiphertextException);

    const unknown = await rejection(client.send(new GenerateDataKeyCommand({ KeyId: 'nope', KeySpec: 'AES_256' })));
    expect(unknown).toBeInstanceOf(NotFoundException);
    expect(fake.calls[0]?.target).toBe('TrentService.Decrypt');
  });
});

describe('kmsKeyring', () => {
  test('round trip, through GenerateDataKey and Decrypt with the context and key id', async () => {
    const ring = kmsKeyring({ keyId: fake.keyId, client });
    const sealed = await ring.seal(SECRET, context);
    expect(sealed).toMatch(/^v1\.kms\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(await ring.open(sealed, context)).toBe(SECRET);

    expect(targets()).toEqual(['TrentService.GenerateDataKey', 'TrentService.Decrypt']);
    const [generate, decrypt] = fake.calls;
    expect(generate?.body).toEqual({ KeyId: fake.keyId, KeySpec: 'AES_256', EncryptionContext: context });
    expect(decrypt?.body).toMatchObject({ KeyId: fake.keyId, EncryptionContext: context });
    expect(decrypt?.body.CiphertextBlob).toBe(Buffer.from(sealed.split('.')[2] ?? '', 'base64url').toString('base64'));
  });

  test('unicode round trip', async () => {
    const ring = kmsKeyring({ keyId: fake.keyId, client });
    const value = 'rk_test_ключ_🔑';
    expect(await ring.open(await ring.seal(value, context), context)).toBe(value);
  });

  test('the plaintext secret is never sent to KMS', async () => {
    const ring = kmsKeyring({ keyId: fake.keyId, client });
    await ring.open(await ring.seal(SECRET, context), context);
    const wire = JSON.stringify(fake.calls);
    for (const form of [SECRET, Buffer.from(SECRET).toString('base64'), Buffer.from(SECRET).toString('hex')]) {
      expect(wire).not.toContain(form);
    }
  });

  test('another context does not open, and KMS is what refuses it', async () => {
    const ring = kmsKeyring({ keyId: fake.keyId, client });
    const sealed = await ring.seal(SECRET, context);
    const error = await rejection(ring.open(sealed, { ...context, projectId: 'prj_other' }));
    expect(error).toBeInstanceOf(SecretUnreadableError);
    expect(error.message).toContain('InvalidCiphertextException');
    expect(error.message).not.toContain(SECRET);
    expect(targets()).toEqual(['TrentService.GenerateDataKey', 'TrentService.Decrypt']);
  });

  test('a second open of the same value is served from the cache; another context is not', async () => {
    const ring = kmsKeyring({ keyId: fake.keyId, client });
    const sealed = await ring.seal(SECRET, context);
    expect(await ring.open(sealed, context)).toBe(SECRET);
    expect(await ring.open(sealed, { purpose: context.purpose, projectId: context.projectId })).toBe(SECRET);
    expect(targets().filter((t) => t === 'TrentService.Decrypt')).toHaveLength(1);

    await rejection(ring.open(sealed, { ...context, projectId: 'prj_other' }));
    expect(targets().filter((t) => t === 'TrentService.Decrypt')).toHaveLength(2);
  });

  test('the cache expires after five minutes', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const ring = kmsKeyring({ keyId: fake.keyId, client });
    const sealed = await ring.seal(SECRET, context);
    await ring.open(sealed, context);
    vi.setSystemTime(Date.now() + 4 * 60_000);
    await ring.open(sealed, context);
    expect(targets().filter((t) => t === 'TrentService.Decrypt')).toHaveLength(1);
    vi.setSystemTime(Date.now() + 2 * 60_000);
    expect(await ring.open(sealed, context)).toBe(SECRET);
    expect(targets().filter((t) => t === 'TrentService.Decrypt')).toHaveLength(2);
  });

  test('an unknown key id: seal rejects with the KMS error', async () => {
    const ring = kmsKeyring({ keyId: 'alias/does-not-exist', client });
    const error = await rejection(ring.seal(SECRET, context));
    expect(error).toBeInstanceOf(NotFoundException);
    expect(error.message).not.toContain(SECRET);
  });

  test('opening under a keyring for another key id is refused by KMS', async () => {
    const sealed = await kmsKeyring({ keyId: fake.keyId, client }).seal(SECRET, context);
    const error = await rejection(kmsKeyring({ keyId: 'alias/other', client }).open(sealed, context));
    expect(error).toBeInstanceOf(SecretUnreadableError);
    expect(error.message).toContain('NotFoundException');
  });

  test('an access-denied open is unreadable and names the error; a KMS outage propagates', async () => {
    // One attempt: the SDK would otherwise retry throttling and 5xx with backoff first.
    const once = new KMSClient({ ...clientOptions(), maxAttempts: 1 });
    const ring = kmsKeyring({ keyId: fake.keyId, client: once });
    const sealed = await ring.seal(SECRET, context);

    fake.failNext('AccessDeniedException', { target: 'TrentService.Decrypt' });
    const denied = await rejection(ring.open(sealed, context));
    expect(denied).toBeInstanceOf(SecretUnreadableError);
    expect(denied.message).toContain('AccessDeniedException');

    fake.failNext('LimitExceededException', { target: 'TrentService.Decrypt' });
    const throttled = await rejection(ring.open(sealed, context));
    expect(throttled).not.toBeInstanceOf(SecretUnreadableError);
    expect(throttled.name).toBe('LimitExceededException');
    fake.failNext('KMSInternalException', { target: 'TrentService.Decrypt', status: 500 });
    const outage = await rejection(ring.open(sealed, context));
    expect(outage).not.toBeInstanceOf(SecretUnreadableError);
    expect(outage.name).toBe('KMSInternalException');
    once.destroy();
  });

  test('a tampered payload does not open', async () => {
    const ring = kmsKeyring({ keyId: fake.keyId, client });
    const parts = (await ring.seal(SECRET, context)).split('.');
    const ciphertext = Buffer.from(parts[4] ?? '', 'base64url');
    ciphertext[0] = (ciphertext[0] ?? 0) ^ 1;
    parts[4] = ciphertext.toString('base64url');
    const error = await rejection(ring.open(parts.join('.'), context));
    expect(error).toBeInstanceOf(SecretUnreadableError);
    expect(error.message).toMatch(/altered/);
  });

  test('kms and local values do not cross, and KMS is not asked about a local one', async () => {
    const kms = kmsKeyring({ keyId: fake.keyId, client });
    const local = localKeyring(Buffer.alloc(32, 7));
    const fromKms = await kms.seal(SECRET, context);
    const fromLocal = await local.seal(SECRET, context);
    fake.calls.length = 0;

    const a = await rejection(local.open(fromKms, context));
    expect(a).toBeInstanceOf(SecretUnreadableError);
    expect(a.message).toMatch(/sealed by a kms keyring/);
    const b = await rejection(kms.open(fromLocal, context));
    expect(b).toBeInstanceOf(SecretUnreadableError);
    expect(b.message).toMatch(/sealed by a local keyring/);
    expect(fake.calls).toEqual([]);
  });
});

describe('keyringFor(config) with PAYMENT_KMS_KEY_ID', () => {
  const names = [
    'PAYMENT_KMS_KEY_ID',
    'PAYMENT_KEY_FILE',
    'AWS_ENDPOINT_URL_KMS',
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_REGION',
  ] as const;
  const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));
  afterEach(() => {
    for (const name of names) {
      const value = saved[name];
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    vi.resetModules();
  });

  test('builds a KMS keyring that finds the endpoint through AWS_ENDPOINT_URL_KMS', async () => {
    Object.assign(process.env, {
      PAYMENT_KMS_KEY_ID: fake.keyId,
      AWS_ENDPOINT_URL_KMS: fake.url,
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REGION: 'us-east-1',
    });
    delete process.env.PAYMENT_KEY_FILE;
    vi.resetModules();
    const fresh = await import('#shared/secrets/keyring.ts');
    const { parseRuntimeConfig } = await import('#shared/config.ts');
    const ring = fresh.keyringFor(parseRuntimeConfig(process.env));
    expect(await ring.open(await ring.seal(SECRET, context), context)).toBe(SECRET);
    expect(targets()).toEqual(['TrentService.GenerateDataKey', 'TrentService.Decrypt']);
  });
});
