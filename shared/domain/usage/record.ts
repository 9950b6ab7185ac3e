import type { AggregationMethod } from '#contract/enums.ts';
import { isStorageBusy } from '#db/contention.ts';
import { getProjectItem } from '#db/projects.ts';
import type { FeatureItem, ProjectKey, ProjectPartition } from '#db/types.ts';
import { type AggregateEvents, applyUsage, CONFLICT_BUDGET_MS, deleteUsageItems } from '#db/usage.ts';
import { forgetProjectCached, loadProjectCached } from '../customers/project-cache.ts';
import { type ErrorDetail, NotFoundError, projectNotFound, UnavailableError, ValidationError } from '../errors.ts';
import { aggregationRules } from './aggregation.ts';
import { batchAlertRules } from './alerts.ts';
import { usageLimits } from './limits.ts';
import type { EventsBody, EventsResultView, UsageEventBody } from './schemas.ts';

/** A 400 names at most this many events (the first ones): enough to fix a generator. */
const MAX_DETAILS = 100;
const DAY_MS = 86_400_000;

/** The UTC month an instant counts in, `YYYY-MM`. */
export const utcMonth = (at: number) => new Date(at).toISOString().slice(0, 7);

/** What a valid event needs besides its shape, by its feature's aggregation method. */
function eventProblem(event: UsageEventBody, feature: FeatureItem | undefined, at: number, now: number) {
  if (!feature) return { field: 'featureId', message: `feature ${event.featureId} not found in this project` };
  if (!feature.isCountable) {
    return { field: 'featureId', message: `feature ${event.featureId} is not countable: it takes no usage events` };
  }
  const method = feature.eventAggregationMethod;
  if ((method === 'sum' || method === 'max' || method === 'latest') && event.value === undefined) {
    return { field: 'value', message: `is required: feature ${event.featureId} aggregates by ${method}` };
  }
  if (method === 'sum' && event.value !== undefined && event.value < 0) {
    return { field: 'value', message: `must be 0 or more: feature ${event.featureId} sums usage, which only grows` };
  }
  if (method === 'unique_count' && event.property === undefined) {
    return { field: 'property', message: `is required: feature ${event.featureId} counts unique properties` };
  }
  const late = timeProblem(at, now);
  return late ? { field: 'timestamp', message: late } : undefined;
}

/** What is wrong with an event's time `at` (epoch ms) at `now`: usage counts only recent events. */
export function timeProblem(at: number, now: number): string | undefined {
  if (at < now - usageLimits.pastDays * DAY_MS) return `must be within the last ${usageLimits.pastDays} days`;
  if (at > now + usageLimits.aheadMs) return 'must be at most 5 minutes ahead';
  return undefined;
}

/**
 * Checks every event against the project's features (all or nothing: one bad event is a 400
 * that stores nothing, naming each bad event by its index), then groups the events by
 * aggregate, leaving out ids seen earlier in the batch.
 */
function groupBatch(events: EventsBody['events'], features: readonly FeatureItem[], now: number) {
  const byId = new Map(features.map((f) => [f.featureId, f]));
  const details: ErrorDetail[] = [];
  const groups = new Map<string, AggregateEvents>();
  const seen = new Set<string>();
  let duplicates = 0;
  events.forEach((event, index) => {
    const feature = byId.get(event.featureId);
    const at = event.timestamp === undefined ? now : Date.parse(event.timestamp);
    const problem = eventProblem(event, feature, at, now);
    if (problem) {
      details.push({ path: `events[${index}].${problem.field}`, message: problem.message });
      return;
    }
    if (details.length > 0) return;
    if (seen.has(event.eventId)) {
      duplicates++;
      return;
    }
    seen.add(event.eventId);
    const method = (feature as FeatureItem).eventAggregationMethod as AggregationMethod;
    const month = utcMonth(at);
    const key = `${event.customerId}\u0000${event.featureId}\u0000${month}`;
    let group = groups.get(key);
    if (!group) {
      group = { customerId: event.customerId, featureId: event.featureId, month, method, events: [] };
      groups.set(key, group);
    }
    group.events.push({ eventId: event.eventId, value: event.value, property: event.property, at });
  });
  if (details.length > 0) {
    const first = details[0] as ErrorDetail;
    const more = details.length > 1 ? ` (and ${details.length - 1} more)` : '';
    throw new ValidationError(
      `Invalid request body: ${first.path} ${first.message}${more}; no event of the batch was stored.`,
      details.slice(0, MAX_DETAILS),
    );
  }
  return { groups: [...groups.values()], duplicates };
}

/**
 * Usage events: each event id counts once (in the last 35 days), whatever is resent, cut
 * short or sent at once by several senders; shared/db/usage-write.ts says how.
 */
export async function recordEvents(key: ProjectKey, body: EventsBody, options: RecordOptions, now = Date.now()) {
  return onCachedProject(key, options.cacheTtlMs, (partition) => recordInto(key, partition, body, options, now));
}

/**
 * `run` on the cached project, and again on the project as stored now when it refuses (a 400
 * or 404): a cached definition may lack a feature created since, or name a project deleted and
 * created again under its slug. Only what the project as stored now refuses is refused.
 */
export async function onCachedProject<T>(
  key: ProjectKey,
  cacheTtlMs: number,
  run: (partition: ProjectPartition) => Promise<T>,
): Promise<T> {
  const partition = await loadProjectCached(key, cacheTtlMs);
  try {
    return await run(partition);
  } catch (error) {
    if (cacheTtlMs <= 0 || !(error instanceof ValidationError || error instanceof NotFoundError)) throw error;
    forgetProjectCached(key);
    return run(await loadProjectCached(key, cacheTtlMs));
  }
}

export interface RecordOptions {
  cacheTtlMs: number;
  /** How long conflicting writes are retried before the batch is a 503 (USAGE_RETRY_MS). */
  retryMs?: number;
}

async function recordInto(
  key: ProjectKey,
  partition: ProjectPartition,
  body: EventsBody,
  options: RecordOptions,
  now: number,
): Promise<EventsResultView> {
  const { groups, duplicates } = groupBatch(body.events, partition.features, now);
  const { projectId, shareId } = partition.project;
  // The project may have been deleted while the batch was written (or since it was cached):
  // its sweep may have passed already, so what this batch wrote goes now. Checked after the
  // writes, so either the sweep saw them or this check sees the delete; also after writes
  // that gave up part way (a 503), which may have committed some transactions.
  const sweepIfGone = async () => {
    const project = await getProjectItem(key);
    if (project && project.shareId === shareId) return;
    await deleteUsageItems(projectId, groups);
    throw projectNotFound(key.slug);
  };
  let outcome: Awaited<ReturnType<typeof applyUsage>>;
  try {
    const rules = { ...aggregationRules, alerts: batchAlertRules(key, partition, now) };
    outcome = await applyUsage(projectId, groups, rules, {
      conflictBudgetMs: options.retryMs ?? CONFLICT_BUDGET_MS,
    });
  } catch (error) {
    await sweepIfGone();
    if (!isStorageBusy(error)) throw error;
    throw new UnavailableError(
      'Concurrent writes of the same customers and features kept part of this batch from being written in time; ' +
        'send the same batch again: its events already counted come back as duplicates.',
    );
  }
  if (outcome.accepted > 0) await sweepIfGone();
  return { accepted: outcome.accepted, duplicates: duplicates + outcome.duplicates };
}
