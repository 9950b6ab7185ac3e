import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';

/**
 * Everything that differs between stages, in one typed place. `dev` is forgiving (it can be
 * torn down completely and throttles low); every other stage is protective: its data
 * survives a `cdk destroy`, the table refuses deletion, and alarms watch it.
 */
export interface StageSettings {
  stage: string;
  /** Outside dev: RETAIN and deletion protection for the table, the key and the logs. */
  protective: boolean;
  removalPolicy: RemovalPolicy;
  logRetention: RetentionDays;
  /** API Gateway stage throttling, for every route without its own (API v1, preflights, unknown paths). */
  throttle: Throttle;
  /**
   * The public routes' own throttling, so that a flood of anonymous calls cannot use up the
   * stage's budget that API v1 users share: `payments` for checkout, custom checkout and
   * receipt (the functions also count calls per client address and per project:
   * shared/contract/limits.ts), `share` for the share data, the widget and the demo page.
   */
  publicThrottle: { payments: Throttle; share: Throttle };
  alarms: boolean;
  logLevel: 'debug' | 'info' | 'error';
  /** Per function, every group alike; each group's timeout is in its spec (shared/function-specs.ts). */
  memorySize: number;
}

/** Steady requests per second and the burst above it, as API Gateway counts them (per stage, across clients). */
export interface Throttle {
  rateLimit: number;
  burstLimit: number;
}

/** Short and lower-case: it names stacks, roles and aliases, which have length limits. */
export const stagePattern = /^[a-z][a-z0-9-]{0,19}$/;

export class StageError extends Error {
  override name = 'StageError';
}

export function stageSettings(stage: unknown): StageSettings {
  if (typeof stage !== 'string' || stage === '') {
    throw new StageError('A stage is required: run `npx cdk deploy -c stage=<name>` (for example -c stage=dev).');
  }
  if (!stagePattern.test(stage)) {
    throw new StageError(
      `Invalid stage "${stage.slice(0, 40)}": pass -c stage=<name> with 1-20 lower-case letters, digits and hyphens, starting with a letter (for example -c stage=dev).`,
    );
  }
  return settingsFor(stage, stage !== 'dev');
}

/** `dev` is forgiving: torn down completely, throttled low, verbose. Every other stage protects its data. */
const settingsFor = (stage: string, protective: boolean): StageSettings => ({
  stage,
  protective,
  removalPolicy: protective ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
  logRetention: protective ? RetentionDays.THREE_MONTHS : RetentionDays.ONE_WEEK,
  throttle: protective ? { rateLimit: 500, burstLimit: 1000 } : { rateLimit: 20, burstLimit: 40 },
  publicThrottle: protective
    ? { payments: { rateLimit: 50, burstLimit: 100 }, share: { rateLimit: 200, burstLimit: 400 } }
    : { payments: { rateLimit: 5, burstLimit: 10 }, share: { rateLimit: 10, burstLimit: 20 } },
  alarms: protective,
  logLevel: protective ? 'info' : 'debug',
  memorySize: protective ? 1024 : 512,
});
