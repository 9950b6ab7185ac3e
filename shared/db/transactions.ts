import { setTimeout as sleep } from 'node:timers/promises';
import { db, type PricingService } from './service.ts';

type WriteBuilder = Parameters<PricingService['transaction']['write']>[0];

export interface CancellationReason {
  code: string;
  item: Record<string, unknown> | null;
}

export type TransactionOutcome = { committed: true } | { committed: false; reasons: CancellationReason[] };

/** TransactWriteItems takes at most 100 actions. */
export const MAX_TRANSACTION_ITEMS = 100;

/**
 * Runs a write transaction. ElectroDB resolves (does not throw) when DynamoDB cancels one,
 * so the outcome is returned for the caller to read reason by reason. Cancellations caused
 * only by concurrent transactions on the same items (TransactionConflict) are retried with
 * jittered backoff; a failed condition is the caller's to interpret.
 */
export async function writeTransaction(build: WriteBuilder): Promise<TransactionOutcome> {
  for (let attempt = 0; ; attempt++) {
    const result = await db().transaction.write(build).go();
    if (!result.canceled) return { committed: true };
    const reasons = (result.data as Array<{ code?: string; item?: unknown }>).map((r) => ({
      code: r.code ?? 'None',
      item: (r.item ?? null) as Record<string, unknown> | null,
    }));
    const failedCondition = reasons.some((r) => r.code === 'ConditionalCheckFailed');
    const conflicted = reasons.some((r) => r.code === 'TransactionConflict');
    if (!failedCondition && conflicted && attempt < 8) {
      await sleep(Math.random() * Math.min(800, 20 * 2 ** attempt));
      continue;
    }
    if (!failedCondition) {
      throw new Error(`Transaction cancelled: ${reasons.map((r) => r.code).join(', ')}`);
    }
    return { committed: false, reasons };
  }
}

export const conditionFailedAt = (outcome: TransactionOutcome, index: number): boolean =>
  !outcome.committed && outcome.reasons[index]?.code === 'ConditionalCheckFailed';
