import type { Context, ScheduledEvent, SQSEvent } from 'aws-lambda';
import * as z from 'zod';
import type { Ports } from '#domain/ports.ts';
import { resumableSweeps, runProjectSweep } from '#domain/projects/delete.ts';
import { lazySchema } from '#domain/validation.ts';
import { runMigration } from '#domain/versions/migrate.ts';
import { log } from '#shared/logger.ts';

/**
 * How long before its timeout the sweeper stops (between two batches, each well under a
 * second) and hands what is left back to the queue: a new message, so a large sweep runs on
 * in the next invocation without spending the message's receive count.
 */
export const SWEEP_MARGIN_MS = 20_000;

/**
 * A sweep still pending this long after its delete lost its hand-over (the queue was
 * unreachable), or whose messages ended in the dead-letter queue: the periodic check hands it
 * over again.
 */
export const STALE_SWEEP_MS = 15 * 60_000;

const id = lazySchema(() => z.number().int().positive());
const SweepMessage = lazySchema(() => z.object({ projectId: id() }));
/** A plan migration too large for its request (shared/domain/versions/migrate.ts). */
const MigrationMessage = lazySchema(() =>
  z.object({
    migration: z.object({
      ownerId: z.string(),
      slug: z.string(),
      planId: id(),
      fromVersions: z.array(id()),
      toVersion: id(),
      at: z.enum(['now', 'period_end']),
    }),
  }),
);

export type SweeperPorts = Pick<Ports, 'sweeps' | 'migrations' | 'keyring' | 'payments'>;

/** A queue's messages, or the schedule's event (EventBridge; only its absence of Records matters). */
export type SweeperEvent = SQSEvent | Pick<ScheduledEvent, 'source'>;

/**
 * The sweeper: each queue message sweeps one deleted project (or runs one plan migration)
 * until it is done or the time is nearly up. An error fails the message, which SQS delivers again after its visibility
 * timeout and moves to the dead-letter queue after a few attempts (the sweep's record stays:
 * the periodic check hands it over again once the cause is fixed). The scheduled event is
 * that check.
 */
export function createSweeper(ports: SweeperPorts) {
  const { sweeps } = ports;
  return async (event: SweeperEvent, context: Pick<Context, 'getRemainingTimeInMillis'>): Promise<void> => {
    if (!('Records' in event)) {
      const stale = await resumableSweeps(STALE_SWEEP_MS);
      for (const projectId of stale) await sweeps.enqueue(projectId);
      log({ level: 'info', msg: 'pending project sweeps handed over again', count: stale.length });
      return;
    }
    const budget = { exhausted: () => context.getRemainingTimeInMillis() < SWEEP_MARGIN_MS };
    for (const record of event.Records) {
      const body = JSON.parse(record.body);
      const migration = MigrationMessage().safeParse(body);
      if (migration.success) {
        const job = migration.data.migration;
        const outcome = await runMigration(ports, job, budget);
        if (outcome === 'unfinished') await ports.migrations.enqueue(job);
        log({ level: 'info', msg: 'plan migration', planId: job.planId, toVersion: job.toVersion, outcome });
        continue;
      }
      const { projectId } = SweepMessage().parse(body);
      const started = performance.now();
      const outcome = await runProjectSweep(projectId, budget);
      if (outcome === 'unfinished') await sweeps.enqueue(projectId);
      log({
        level: 'info',
        msg: 'project sweep',
        projectId,
        outcome,
        durationMs: Math.round(performance.now() - started),
      });
    }
  };
}
