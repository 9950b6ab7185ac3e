/**
 * Configuration is read from the environment once, so a bad value fails at start-up with one
 * line that names the variable, not later inside a request. It is read without zod: every
 * function reads it at init, and the first zod schema a process builds pays for zod's warm-up,
 * which belongs to the first request that validates something (docs/decisions.md, "Bundles and
 * cold starts").
 */

/** How one variable reads: its value from the raw text (undefined when unset), or a `Refusal`. */
export type Variable<T> = (raw: string | undefined) => T;

class Refusal {
  constructor(readonly message: string) {}
}

const refuse = (message: string): never => {
  throw new Refusal(message);
};

/** A trimmed text; unset or blank is undefined. */
const optionalText: Variable<string | undefined> = (raw) => raw?.trim() || undefined;

const isHttpUrl = (value: string) => {
  try {
    return /^https?:$/.test(new URL(value).protocol);
  } catch {
    return false;
  }
};

/** An http(s) URL; unset or blank is undefined. */
const optionalUrl: Variable<string | undefined> = (raw) => {
  const value = optionalText(raw);
  if (value !== undefined && !isHttpUrl(value)) refuse('must be an http(s) URL such as http://127.0.0.1:8000');
  return value;
};

/** A text that is not empty; unset is `fallback`. */
export const text =
  (fallback: string, empty: string): Variable<string> =>
  (raw) =>
    raw === undefined ? fallback : raw === '' ? refuse(empty) : raw;

/** One of `values`; unset is `fallback`. */
export const oneOf =
  <const V extends string>(values: readonly V[], fallback: NoInfer<V>, message: string): Variable<V> =>
  (raw) =>
    raw === undefined ? fallback : values.includes(raw as V) ? (raw as V) : refuse(message);

interface NumberRule {
  /** What a value that is not a number is told, e.g. "must be a number of seconds". */
  notNumber: string;
  /** What a fraction is told; absent: fractions are allowed. */
  notWhole?: string;
  /** The smallest value and what a smaller one is told; `above` excludes `min` itself. */
  min: number;
  below: string;
  above?: boolean;
  max: number;
  over: string;
  fallback: number;
}

/** A number (as `Number()` reads the text, so blank is 0); unset is the rule's `fallback`. */
export const number =
  (rule: NumberRule): Variable<number> =>
  (raw) => {
    if (raw === undefined) return rule.fallback;
    const value = Number(raw);
    if (!Number.isFinite(value)) return refuse(rule.notNumber);
    if (rule.notWhole !== undefined && !Number.isInteger(value)) return refuse(rule.notWhole);
    if (rule.above ? value <= rule.min : value < rule.min) return refuse(rule.below);
    return value > rule.max ? refuse(rule.over) : value;
  };

/** A whole number of `unit` between `min` and `max`, told as such; unset is `fallback`. */
const wholeNumberOf = (unit: string, min: number, max: number, fallback: number) => {
  const range = `must be between ${min} and ${max}`;
  return number({
    notNumber: `must be a number of ${unit}`,
    notWhole: `must be a whole number of ${unit}`,
    min,
    below: range,
    max,
    over: range,
    fallback,
  });
};

const tableName: Variable<string> = (raw) =>
  raw === undefined
    ? 'pricing-local'
    : /^[A-Za-z0-9_.-]{3,255}$/.test(raw)
      ? raw
      : refuse('must be a DynamoDB table name (3-255 of A-Z a-z 0-9 _ . -)');

/** What every Lambda handler needs; dev/local-config.ts extends it for local runs. */
export const RuntimeEnv = {
  TABLE_NAME: tableName,
  DYNAMODB_ENDPOINT: optionalUrl,
  // The embedded DynamoDB Local's own credential (a JSON file npm start keeps, mode 600): that
  // database answers only to it. Unset: the AWS SDK's usual credentials.
  DYNAMODB_CREDENTIAL_FILE: optionalText,
  AWS_REGION: text('us-east-1', 'must not be empty'),
  KEY_CACHE_TTL_SECONDS: wholeNumberOf('seconds', 0, 60, 60),
  // Entitlement reads keep a project's definition (features, plans, assignments) this long per
  // container, so a warm read is one DynamoDB request; a plan edit reaches them within it.
  PROJECT_CACHE_TTL_SECONDS: wholeNumberOf('seconds', 0, 10, 10),
  // How long a usage batch retries transactions that conflict with concurrent senders (or are
  // throttled) before it answers 503 with Retry-After; well inside the customers function's 10 s.
  USAGE_RETRY_MS: wholeNumberOf('milliseconds', 0, 8000, 6000),
  // Where Stripe reaches this service: a project's webhookUrl starts with it. Unset (locally),
  // the URL the request came in on.
  PUBLIC_BASE_URL: optionalUrl,
  LOG_LEVEL: oneOf(['debug', 'info', 'error', 'silent'], 'info', 'must be debug, info, error or silent'),
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
  WEBHOOK_URLS: oneOf(['public', 'loopback'], 'public', 'must be public or loopback'),
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
  WEBHOOK_RETRY_SCALE: number({
    notNumber: 'must be a number',
    min: 0,
    above: true,
    below: 'must be above 0',
    max: 1,
    over: 'must be at most 1',
    fallback: 1,
  }),
  // How long a migrate request moves customers itself before it hands the rest to the
  // background (shared/domain/versions/migrate.ts): well inside the plans function's timeout.
  // Tests set 0 to hand every migration over.
  MIGRATION_INLINE_MS: wholeNumberOf('milliseconds', 0, 20000, 4000),
  // Another Stripe-compatible server (tests, local runs); unset means api.stripe.com.
  STRIPE_API_BASE: optionalUrl,
  // Per attempt. The SDK makes at most two (one retry after ≥ 0.5 s), so the worst case is
  // about 2 × this + 1 s: the payments Lambda's timeout must be longer (README, infra).
  STRIPE_TIMEOUT_MS: wholeNumberOf('milliseconds', 100, 10000, 5000),
} satisfies Record<string, Variable<unknown>>;

/** What `variables` read into. */
export type ConfigOf<V extends Record<string, Variable<unknown>>> = { [K in keyof V]: ReturnType<V[K]> };

export type RuntimeConfig = ConfigOf<typeof RuntimeEnv>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads `variables` from `env`, in order; the first refusal is a ConfigError naming the variable and its value. */
export function parseEnv<V extends Record<string, Variable<unknown>>>(
  variables: V,
  env: NodeJS.ProcessEnv,
): ConfigOf<V> {
  const config: Record<string, unknown> = {};
  for (const [name, read] of Object.entries(variables)) {
    try {
      config[name] = read(env[name]);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      const got = env[name];
      throw new ConfigError(
        `Invalid configuration: ${name} ${error.message}${got === undefined ? '' : ` (got "${got}")`}`,
      );
    }
  }
  return config as ConfigOf<V>;
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
