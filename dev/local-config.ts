import { type ConfigOf, number, oneOf, parseEnv, RuntimeEnv, text } from '#shared/config.ts';

/**
 * What `npm start`, the CLI and `npm run seed` read on top of what a Lambda handler reads:
 * ports and the data directory, which no deployed function has.
 */

const port = (fallback: number, { min = 1, notNumber = 'must be a port number' } = {}) =>
  number({
    notNumber,
    notWhole: 'must be a whole number',
    min,
    below: `must be between ${min} and 65535`,
    max: 65535,
    over: `must be between ${min} and 65535`,
    fallback,
  });

const LocalEnv = {
  ...RuntimeEnv,
  // A local run's webhook receivers are on this machine: plain http to loopback is allowed.
  WEBHOOK_URLS: oneOf(['public', 'loopback'], 'loopback', 'must be public or loopback'),
  PORT: port(3000),
  DYNAMODB_PORT: port(8000),
  DATA_DIR: text('.data', 'must be a directory path or :memory:'),
  // Without STRIPE_API_BASE, `npm start` runs the project's fake Stripe on this port (0: any free one).
  FAKE_STRIPE_PORT: port(12111, { min: 0, notNumber: 'must be a port number, or 0 for any free port' }),
};

export type LocalConfig = ConfigOf<typeof LocalEnv>;

let local: LocalConfig | undefined;

/**
 * The process's configuration, parsed once: a bad variable fails at start-up with one line
 * that names it. Another `env` (a test's) is parsed on its own and not kept.
 */
export function localConfig(env?: NodeJS.ProcessEnv): LocalConfig {
  if (env) return parseEnv(LocalEnv, env);
  local ??= parseEnv(LocalEnv, process.env);
  return local;
}
