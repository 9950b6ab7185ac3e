import { describe, expect, test } from 'vitest';
import { parseRuntimeConfig } from '#shared/config.ts';
import { localConfig } from '../../dev/local-config.ts';

/** The configuration as a Lambda handler and a local run read it from the environment. */

const refusal = (env: NodeJS.ProcessEnv, local = false) => {
  try {
    if (local) localConfig(env);
    else parseRuntimeConfig(env);
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
};

describe('the runtime configuration', () => {
  test('unset variables take their defaults; blank optional texts and URLs are unset', () => {
    const config = parseRuntimeConfig({ PAYMENT_KEY_FILE: '  ', DYNAMODB_ENDPOINT: '', SWEEP_QUEUE_URL: ' q ' });
    expect(config).toMatchObject({
      TABLE_NAME: 'pricing-local',
      AWS_REGION: 'us-east-1',
      KEY_CACHE_TTL_SECONDS: 60,
      PROJECT_CACHE_TTL_SECONDS: 10,
      USAGE_RETRY_MS: 6000,
      LOG_LEVEL: 'info',
      WEBHOOK_URLS: 'public',
      WEBHOOK_RETRY_SCALE: 1,
      MIGRATION_INLINE_MS: 4000,
      STRIPE_TIMEOUT_MS: 5000,
      SWEEP_QUEUE_URL: 'q',
    });
    expect(config.PAYMENT_KEY_FILE).toBeUndefined();
    expect(config.DYNAMODB_ENDPOINT).toBeUndefined();
  });

  test('reads what is set', () => {
    const config = parseRuntimeConfig({
      TABLE_NAME: 'pricing-prod',
      DYNAMODB_ENDPOINT: ' http://127.0.0.1:8000 ',
      KEY_CACHE_TTL_SECONDS: '0',
      WEBHOOK_RETRY_SCALE: '0.001',
      LOG_LEVEL: 'silent',
      WEBHOOK_URLS: 'loopback',
    });
    expect(config).toMatchObject({
      TABLE_NAME: 'pricing-prod',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      KEY_CACHE_TTL_SECONDS: 0,
      WEBHOOK_RETRY_SCALE: 0.001,
      LOG_LEVEL: 'silent',
      WEBHOOK_URLS: 'loopback',
    });
  });

  test.each([
    [{ TABLE_NAME: 'a b' }, 'TABLE_NAME must be a DynamoDB table name (3-255 of A-Z a-z 0-9 _ . -) (got "a b")'],
    [{ AWS_REGION: '' }, 'AWS_REGION must not be empty (got "")'],
    [
      { DYNAMODB_ENDPOINT: 'ftp://x' },
      'DYNAMODB_ENDPOINT must be an http(s) URL such as http://127.0.0.1:8000 (got "ftp://x")',
    ],
    [{ STRIPE_API_BASE: 'nope' }, 'STRIPE_API_BASE must be an http(s) URL such as http://127.0.0.1:8000 (got "nope")'],
    [{ KEY_CACHE_TTL_SECONDS: 'soon' }, 'KEY_CACHE_TTL_SECONDS must be a number of seconds (got "soon")'],
    [{ KEY_CACHE_TTL_SECONDS: '1.5' }, 'KEY_CACHE_TTL_SECONDS must be a whole number of seconds (got "1.5")'],
    [{ KEY_CACHE_TTL_SECONDS: '61' }, 'KEY_CACHE_TTL_SECONDS must be between 0 and 60 (got "61")'],
    [{ STRIPE_TIMEOUT_MS: '99' }, 'STRIPE_TIMEOUT_MS must be between 100 and 10000 (got "99")'],
    [{ USAGE_RETRY_MS: 'Infinity' }, 'USAGE_RETRY_MS must be a number of milliseconds (got "Infinity")'],
    [{ WEBHOOK_RETRY_SCALE: '0' }, 'WEBHOOK_RETRY_SCALE must be above 0 (got "0")'],
    [{ WEBHOOK_RETRY_SCALE: '2' }, 'WEBHOOK_RETRY_SCALE must be at most 1 (got "2")'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be debug, info, error or silent (got "loud")'],
    [{ WEBHOOK_URLS: 'any' }, 'WEBHOOK_URLS must be public or loopback (got "any")'],
  ])('refuses %j with one line naming the variable', (env, message) => {
    expect(refusal(env)).toBe(`Invalid configuration: ${message}`);
  });

  test('names the first variable refused, in the order they are declared', () => {
    expect(refusal({ LOG_LEVEL: 'loud', TABLE_NAME: 'x' })).toContain('TABLE_NAME');
  });
});

describe('the local configuration', () => {
  test('adds ports and the data directory, and allows loopback webhooks by default', () => {
    expect(localConfig({})).toMatchObject({
      PORT: 3000,
      DYNAMODB_PORT: 8000,
      DATA_DIR: '.data',
      FAKE_STRIPE_PORT: 12111,
      WEBHOOK_URLS: 'loopback',
      TABLE_NAME: 'pricing-local',
    });
    expect(localConfig({ FAKE_STRIPE_PORT: '0', DATA_DIR: ':memory:' })).toMatchObject({
      FAKE_STRIPE_PORT: 0,
      DATA_DIR: ':memory:',
    });
  });

  test.each([
    [{ PORT: 'http' }, 'PORT must be a port number (got "http")'],
    [{ PORT: '0' }, 'PORT must be between 1 and 65535 (got "0")'],
    [{ DYNAMODB_PORT: '80.5' }, 'DYNAMODB_PORT must be a whole number (got "80.5")'],
    [{ FAKE_STRIPE_PORT: '70000' }, 'FAKE_STRIPE_PORT must be between 0 and 65535 (got "70000")'],
    [{ DATA_DIR: '' }, 'DATA_DIR must be a directory path or :memory: (got "")'],
  ])('refuses %j', (env, message) => {
    expect(refusal(env, true)).toBe(`Invalid configuration: ${message}`);
  });
});
