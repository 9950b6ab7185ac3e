import * as z from 'zod';
import { parseEnv, RuntimeEnv } from '#shared/config.ts';

/**
 * What `npm start`, the CLI and `npm run seed` read on top of what a Lambda handler reads:
 * ports and the data directory, which no deployed function has.
 */

const port = z.coerce
  .number({ error: 'must be a port number' })
  .int('must be a whole number')
  .min(1, 'must be between 1 and 65535')
  .max(65535, 'must be between 1 and 65535');

const LocalEnv = RuntimeEnv.extend({
  // A local run's webhook receivers are on this machine: plain http to loopback is allowed.
  WEBHOOK_URLS: z.enum(['public', 'loopback'], { error: 'must be public or loopback' }).default('loopback'),
  PORT: port.default(3000),
  DYNAMODB_PORT: port.default(8000),
  DATA_DIR: z.string().min(1, 'must be a directory path or :memory:').default('.data'),
  // Without STRIPE_API_BASE, `npm start` runs the project's fake Stripe on this port (0: any free one).
  FAKE_STRIPE_PORT: z.coerce
    .number({ error: 'must be a port number, or 0 for any free port' })
    .int('must be a whole number')
    .min(0, 'must be between 0 and 65535')
    .max(65535, 'must be between 0 and 65535')
    .default(12111),
});

export type LocalConfig = z.infer<typeof LocalEnv>;

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
