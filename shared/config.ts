import * as z from 'zod';

/**
 * Configuration is read from the environment once and validated with zod, so a bad value
 * fails at start-up with one line that names the variable, not later inside a request.
 */

const optionalUrl = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v === '' ? undefined : v))
  .pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://127.0.0.1:8000' }).optional());

const optionalText = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v === '' ? undefined : v));

/** What every Lambda handler needs; dev/local-config.ts extends it for local runs. */
export const RuntimeEnv = z.object({
  TABLE_NAME: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{3,255}$/, 'must be a DynamoDB table name (3-255 of A-Z a-z 0-9 _ . -)')
    .default('pricing-local'),
  DYNAMODB_ENDPOINT: optionalUrl,
  // The embedded DynamoDB Local's own credential (a JSON file npm start keeps, mode 600): that
  // database answers only to it. Unset: the AWS SDK's usual credentials.
  DYNAMODB_CREDENTIAL_FILE: optionalText,
  AWS_REGION: z.string().min(1).default('us-east-1'),
  KEY_CACHE_TTL_SECONDS: z.coerce
    .number({ error: 'must be a number of seconds' })
    .int('must be a whole number of seconds')
    .min(0, 'must be between 0 and 60')
    .max(60, 'must be between 0 and 60')
    .default(60),
  // Entitlement reads keep a project's definition (features, plans, assignments) this long per
  // container, so a warm read is one DynamoDB request; a plan edit reaches them within it.
  PROJECT_CACHE_TTL_SECONDS: z.coerce
    .number({ error: 'must be a number of seconds' })
    .int('must be a whole number of seconds')
    .min(0, 'must be between 0 and 10')
    .max(10, 'must be between 0 and 10')
    .default(10),
  // How long a usage batch retries transactions that conflict with concurrent senders (or are
  // throttled) before it answers 503 with Retry-After; well inside the customers function's 10 s.
  USAGE_RETRY_MS: z.coerce
    .number({ error: 'must be a number of milliseconds' })
    .int('must be a whole number of milliseconds')
    .min(0, 'must be between 0 and 8000')
    .max(8000, 'must be between 0 and 8000')
    .default(6000),
  // Where Stripe reaches this service: a project's webhookUrl starts with it. Unset (locally),
  // the URL the request came in on.
  PUBLIC_BASE_URL: optionalUrl,
  LOG_LEVEL: z
    .enum(['debug', 'info', 'error', 'silent'], { error: 'must be debug, info, error or silent' })
    .default('info'),
  // Where projects' payment keys are sealed: a KMS key in a deployed stage, or a local key
  // file (npm start creates one under DATA_DIR). Exactly one is needed where keys are used.
  PAYMENT_KMS_KEY_ID: optionalText,
  PAYMENT_KEY_FILE: optionalText,
  // The keys customer tokens are signed with, `id:secret,id:secret`, the signing one first
  // (shared/secrets/token-keys.ts). Unset locally: derived from PAYMENT_KEY_FILE.
  CUSTOMER_TOKEN_KEYS: optionalText,
  // The built widget.js the share function serves. A Lambda finds it next to its own code;
  // `npm start` and the tests build it and name the file here.
  WIDGET_FILE: optionalText,
  // The queue a project delete hands its sweep to (a stage's projects and sweeper functions).
  SWEEP_QUEUE_URL: optionalText,
  // What the CDN sends in the x-pricing-cdn-origin header of every request it forwards (a
  // stage sets both): a request that carries it came through CloudFront, whose
  // X-Forwarded-For names the visitor (shared/http/client-address.ts). Unset: never trusted.
  CDN_ORIGIN_SECRET: optionalText,
  // Where webhook endpoints may point (shared/domain/webhooks-out/url-rules.ts): `public`
  // https hosts only (every deployed stage), or also plain http to a loopback host (`loopback`:
  // npm start and the tests, whose receivers listen on 127.0.0.1).
  WEBHOOK_URLS: z.enum(['public', 'loopback'], { error: 'must be public or loopback' }).default('public'),
  // The queue of webhook deliveries (the webhooksOut worker of a stage).
  WEBHOOK_QUEUE_URL: optionalText,
  // The wake-ups of changes that take effect later (a manual subscription's plan at its period
  // end): EventBridge Scheduler one-time schedules in this group, which put their message on
  // the queue (its ARN) as this role (the webhooksOut worker of a stage).
  WEBHOOK_QUEUE_ARN: optionalText,
  // Where a wake-up the scheduler could not deliver goes (the queue's dead letters, alarmed).
  WEBHOOK_DEAD_LETTER_ARN: optionalText,
  WEBHOOK_SCHEDULE_GROUP: optionalText,
  WEBHOOK_SCHEDULER_ROLE_ARN: optionalText,
  // Local runs only: the webhook retry schedule times this (tests shrink its 24 h to seconds).
  WEBHOOK_RETRY_SCALE: z.coerce
    .number({ error: 'must be a number' })
    .positive('must be above 0')
    .max(1, 'must be at most 1')
    .default(1),
  // How long a migrate request moves customers itself before it hands the rest to the
  // background (shared/domain/versions/migrate.ts): well inside the plans function's timeout.
  // Tests set 0 to hand every migration over.
  MIGRATION_INLINE_MS: z.coerce
    .number({ error: 'must be a number of milliseconds' })
    .int('must be a whole number of milliseconds')
    .min(0, 'must be between 0 and 20000')
    .max(20000, 'must be between 0 and 20000')
    .default(4000),
  // Another Stripe-compatible server (tests, local runs); unset means api.stripe.com.
  STRIPE_API_BASE: optionalUrl,
  // Per attempt. The SDK makes at most two (one retry after ≥ 0.5 s), so the worst case is
  // about 2 × this + 1 s: the payments Lambda's timeout must be longer (README, infra).
  STRIPE_TIMEOUT_MS: z.coerce
    .number({ error: 'must be a number of milliseconds' })
    .int('must be a whole number of milliseconds')
    .min(100, 'must be between 100 and 10000')
    .max(10000, 'must be between 100 and 10000')
    .default(5000),
});

export type RuntimeConfig = z.infer<typeof RuntimeEnv>;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Parses `env` with `schema`; the first problem is a ConfigError naming the variable and its value. */
export function parseEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const name = String(issue?.path[0] ?? 'environment');
  const got = env[name];
  throw new ConfigError(
    `Invalid configuration: ${name} ${issue?.message ?? 'is invalid'}${got === undefined ? '' : ` (got "${got}")`}`,
  );
}

let runtime: RuntimeConfig | undefined;

/** Parsed once per process; a Lambda container reuses it across invocations. */
export function runtimeConfig(): RuntimeConfig {
  runtime ??= parseRuntimeConfig(process.env);
  return runtime;
}

/** A configuration from variables other than the process's own (a bench, a test). */
export function parseRuntimeConfig(env: NodeJS.ProcessEnv): RuntimeConfig {
  return parseEnv(RuntimeEnv, env);
}
