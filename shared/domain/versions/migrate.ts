import { listPlanVersions } from '#db/plan-versions.ts';
import type { ProjectKey, ProjectPartition } from '#db/types.ts';
import { readCustomerWithUsage } from '#db/usage.ts';
import { meteredFeatures } from '../customers/customers.ts';
import { NotFoundError, ValidationError } from '../errors.ts';
import { planViews } from '../plans/view.ts';
import type { MigrationJob, Ports } from '../ports.ts';
import { findPlan, loadProject } from '../projects/load.ts';
import { utcMonth } from '../usage/record.ts';
import { checkIfMatch, type Writer } from '../versions.ts';
import { type VersionContent, versionOf } from './content.ts';
import { planContent } from './current.ts';
import { type Holder, holdersOf } from './holders.ts';
import { moveHolders } from './move.ts';
import { previewRow, previewTotals } from './preview.ts';
import type { MigrateInput, MigrationPreview, MigrationStarted } from './schemas.ts';

/**
 * A migration of at most this many customers starts inside its request, which moves them for
 * at most `inlineMs` (Stripe calls can be slow) and hands what is left to the background; a
 * larger one goes to the background at once.
 */
export const INLINE_MIGRATION_MAX = 100;
/** Customers whose usage a preview reads at once. */
const PREVIEW_READS = 16;

export type MigratePorts = Pick<Ports, 'keyring' | 'payments' | 'migrations'>;

/** The versions a plan has: its current one and every stored (superseded) one, with their content. */
async function versionsOf(partition: ProjectPartition, planId: number) {
  const plan = findPlan(partition, planId);
  const current = versionOf(plan);
  const contents = new Map<number, VersionContent>([[current, planContent(partition, plan)]]);
  for (const item of await listPlanVersions(partition.project.projectId, planId)) {
    if (item.version < current) contents.set(item.version, item.content as VersionContent);
  }
  return { plan, current, contents };
}

/** Checks the body against the plan's versions: unknown ones are 404, naming each; from and to must differ. */
function resolve(input: MigrateInput, planId: number, current: number, contents: Map<number, VersionContent>) {
  const to = input.toVersion ?? current;
  const from = input.fromVersions ?? [...contents.keys()].filter((v) => v < to);
  const unknown = [...new Set([...from, to])].filter((v) => !contents.has(v)).sort((a, b) => a - b);
  if (unknown.length > 0) {
    const list = unknown.join(', ');
    throw new NotFoundError(
      `Plan ${planId} has no version ${list} (versions 1 to ${current}; a version no one held may not be kept).`,
    );
  }
  const same = from.indexOf(to);
  if (same !== -1) {
    throw new ValidationError(`fromVersions lists ${to}, the version customers move to.`, [
      { path: `fromVersions[${same}]`, message: 'must not be the toVersion' },
    ]);
  }
  return { to, from: new Set(from) };
}

/** What is left to do: holders of a from-version not already set to move to `to` at period end. */
export const stillToMove = (holders: Holder[], from: ReadonlySet<number>, to: number) =>
  holders.filter((h) => from.has(h.version) && h.subscription.pendingVersion !== to);

async function preview(
  partition: ProjectPartition,
  holders: Holder[],
  contents: Map<number, VersionContent>,
  to: number,
): Promise<MigrationPreview> {
  const target = contents.get(to) as VersionContent;
  const wanted = new Set(target.features.filter((f) => f.isCountable).map((f) => f.featureId));
  const countable = meteredFeatures(partition).filter((f) => wanted.has(f.featureId));
  const month = utcMonth(Date.now());
  const { project } = partition;
  const rows = [];
  for (let i = 0; i < holders.length; i += PREVIEW_READS) {
    const batch = holders.slice(i, i + PREVIEW_READS);
    rows.push(
      ...(await Promise.all(
        batch.map(async ({ customer, subscription, version }) => {
          const { usage } = await readCustomerWithUsage(project.projectId, customer.customerId, month, countable);
          const input = {
            customerId: customer.customerId,
            fromVersion: version,
            seats: subscription.seats,
            billingInterval: subscription.billingInterval,
            heldBasePrice: subscription.experiment?.basePrice ?? null,
            usage,
          };
          return previewRow(input, contents.get(version) as VersionContent, target, to, project);
        }),
      )),
    );
  }
  return previewTotals(rows);
}

/**
 * `POST …/plans/{planId}/migrate` (lifecycle.md §1). A dry run answers what the move would do
 * to each customer and changes nothing. Otherwise each holder of a from-version moves (see
 * move.ts): here when few, else in the background (202 either way). Resending it, after a
 * crash or not, moves only who has not moved yet.
 */
export async function migratePlan(
  ports: MigratePorts,
  key: ProjectKey,
  planId: number,
  input: MigrateInput,
  writer: Writer,
  inlineMs: number,
): Promise<{ dryRun: true; preview: MigrationPreview } | { dryRun: false; started: MigrationStarted }> {
  const partition = await loadProject(key);
  const { current, contents } = await versionsOf(partition, planId);
  const view = planViews(partition).find((p) => p.id === planId);
  checkIfMatch(writer.ifMatch, view);
  const { to, from } = resolve(input, planId, current, contents);
  const holders = stillToMove(await holdersOf(partition.project.projectId, planId, current), from, to);
  if (input.dryRun) return { dryRun: true, preview: await preview(partition, holders, contents, to) };
  const job: MigrationJob = { ...key, planId, fromVersions: [...from], toVersion: to, at: input.at };
  let handOver = holders.length > INLINE_MIGRATION_MAX;
  if (!handOver) {
    const started = Date.now();
    const budget = { exhausted: () => Date.now() - started >= inlineMs };
    handOver =
      (await moveHolders(ports, partition, job, holders, contents.get(to) as VersionContent, budget)) === 'unfinished';
  }
  if (handOver) await ports.migrations.enqueue(job);
  return { dryRun: false, started: { migrating: holders.length } };
}

/**
 * A migration handed to the background: everything is read again (the plan may have moved
 * on, customers may have moved), then who is still to move moves. 'unfinished' when the
 * budget ran out first: the job is handed over again and carries on where it stopped.
 */
export async function runMigration(
  ports: Pick<Ports, 'keyring' | 'payments'>,
  job: MigrationJob,
  budget: { exhausted(): boolean },
): Promise<'done' | 'unfinished' | 'gone'> {
  const partition = await loadProject(job).catch((error) => {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  });
  if (!partition?.plans.some((p) => p.planId === job.planId)) return 'gone';
  const { current, contents } = await versionsOf(partition, job.planId);
  const target = contents.get(job.toVersion);
  if (!target) return 'gone';
  const from = new Set(job.fromVersions);
  const holders = stillToMove(await holdersOf(partition.project.projectId, job.planId, current), from, job.toVersion);
  return moveHolders(ports, partition, job, holders, target, budget);
}
