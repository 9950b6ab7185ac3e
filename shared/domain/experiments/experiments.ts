import {
  type ExperimentItem,
  insertExperiment,
  startExperimentItem,
  stopExperimentItem,
  updateDraft,
} from '#db/experiments.ts';
import { allocateIds } from '#db/ids.ts';
import type { ProjectKey, ProjectPartition } from '#db/types.ts';
import { changeEntry } from '../changes.ts';
import { ConflictError, LimitExceededError, NotFoundError, planNotFound, projectNotFound } from '../errors.ts';
import { definedOnly } from '../fields.ts';
import { loadProject } from '../projects/load.ts';
import type { Writer } from '../versions.ts';
import { variantsOf } from './assignment.ts';
import {
  type CreateExperimentBody,
  EXPERIMENTS_MAX,
  type ExperimentView,
  type UpdateExperimentBody,
  type VariantInput,
} from './schemas.ts';

/** Pricing experiments of a project (lifecycle.md §5): drafts are edited, started once, stopped once. */

export function experimentView(item: ExperimentItem): ExperimentView {
  return {
    id: item.experimentId,
    name: item.name,
    status: item.status,
    variants: variantsOf(item),
    createdAt: item.createdAt,
    startedAt: item.startedAt ?? null,
    stoppedAt: item.stoppedAt ?? null,
  };
}

/** What the change log records of an experiment: its view and when it last changed. */
const loggedFields = (item: ExperimentItem) => ({ ...experimentView(item), updatedAt: item.updatedAt });

const scopeOf = ({ project }: ProjectPartition) => ({
  ownerId: project.ownerId,
  slug: project.slug,
  shareId: project.shareId,
});

export function findExperiment(partition: ProjectPartition, experimentId: number): ExperimentItem {
  const experiment = partition.experiments.find((e) => e.experimentId === experimentId);
  if (!experiment) throw new NotFoundError(`Experiment ${String(experimentId).slice(0, 30)} not found.`);
  return experiment;
}

/** Every plan a variant overrides is a plan of this project: another's, or none, is a 404. */
function checkPlans(partition: ProjectPartition, variants: VariantInput[]): void {
  const planIds = new Set(partition.plans.map((plan) => plan.planId));
  for (const variant of variants) {
    for (const { planId } of variant.plans) if (!planIds.has(planId)) throw planNotFound(planId);
  }
}

/** Stored without the fields a variant left out, so a read shows exactly what was set. */
const storedVariants = (variants: VariantInput[]) =>
  variants.map(({ key, weight, plans }) => ({ key, weight, plans: plans.map(definedOnly) })) as VariantInput[];

const sortedById = (items: ExperimentItem[]) => [...items].sort((a, b) => a.experimentId - b.experimentId);

export async function listExperiments(key: ProjectKey): Promise<{ experiments: ExperimentView[] }> {
  const partition = await loadProject(key);
  return { experiments: sortedById(partition.experiments).map(experimentView) };
}

export async function getExperiment(key: ProjectKey, experimentId: number): Promise<ExperimentView> {
  return experimentView(findExperiment(await loadProject(key), experimentId));
}

export async function createExperiment(key: ProjectKey, body: CreateExperimentBody, writer: Writer) {
  const partition = await loadProject(key);
  checkPlans(partition, body.variants);
  if (partition.experiments.length >= EXPERIMENTS_MAX) {
    throw new LimitExceededError(`A project keeps at most ${EXPERIMENTS_MAX} experiments.`);
  }
  const [experimentId] = (await allocateIds('experiment')) as [number];
  const now = new Date().toISOString();
  const item = {
    ...scopeOf(partition),
    experimentId,
    name: body.name,
    status: 'draft' as const,
    variants: storedVariants(body.variants),
    createdAt: now,
    updatedAt: now,
  };
  const change = experimentChange(partition.project.projectId, writer, null, item);
  if ((await insertExperiment(scopeOf(partition), item, change)) === 'project_gone') throw projectNotFound(key.slug);
  return experimentView(item);
}

const notDraft = (experiment: ExperimentItem) =>
  new ConflictError(`Experiment ${experiment.experimentId} is ${experiment.status}: only a draft can be edited.`);

/** A partial edit of a draft; a running or stopped experiment is a 409. */
export async function updateExperiment(
  key: ProjectKey,
  experimentId: number,
  body: UpdateExperimentBody,
  writer: Writer,
) {
  const partition = await loadProject(key);
  const experiment = findExperiment(partition, experimentId);
  if (body.variants) checkPlans(partition, body.variants);
  if (experiment.status !== 'draft') throw notDraft(experiment);
  const set = {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.variants ? { variants: storedVariants(body.variants) } : {}),
    updatedAt: new Date().toISOString(),
  };
  const after = { ...experiment, ...set };
  const change = experimentChange(partition.project.projectId, writer, experiment, after);
  const outcome = await updateDraft(scopeOf(partition), experimentId, set, change);
  if (outcome === 'project_gone') throw projectNotFound(key.slug);
  if (outcome !== 'updated') throw notDraft({ ...experiment, status: 'running' });
  return experimentView(after);
}

/** The change-log entry of a create, an edit, a start or a stop: the experiment before (null: none) and after. */
function experimentChange(projectId: number, writer: Writer, before: ExperimentItem | null, after: ExperimentItem) {
  const resource = { type: 'experiment', id: after.experimentId } as const;
  return changeEntry(projectId, writer, resource, before && loggedFields(before), loggedFields(after));
}

/** Starts a draft; a second running experiment in the project, or a non-draft, is a 409. */
export async function startExperiment(key: ProjectKey, experimentId: number, writer: Writer) {
  const partition = await loadProject(key);
  const experiment = findExperiment(partition, experimentId);
  if (experiment.status !== 'draft') {
    throw new ConflictError(`Experiment ${experimentId} is ${experiment.status}: only a draft can be started.`);
  }
  const at = new Date().toISOString();
  const after = { ...experiment, status: 'running' as const, startedAt: at, updatedAt: at };
  const change = experimentChange(partition.project.projectId, writer, experiment, after);
  const variants = variantsOf(experiment).map((variant) => variant.key);
  const { projectId } = partition.project;
  const outcome = await startExperimentItem(scopeOf(partition), projectId, experimentId, variants, at, change);
  if (outcome === 'project_gone') throw projectNotFound(key.slug);
  if (outcome === 'slot_taken') {
    const running = partition.experiments.find((e) => e.status === 'running');
    throw new ConflictError(
      `Experiment ${running?.experimentId ?? 'another'} is running: a project runs one experiment at a time; stop it first.`,
    );
  }
  if (outcome !== 'started') throw new ConflictError(`Experiment ${experimentId} is no longer a draft.`);
  return experimentView(after);
}

/** Stops a running experiment: its customers keep the prices they bought. Anything else is a 409. */
export async function stopExperiment(key: ProjectKey, experimentId: number, writer: Writer) {
  const partition = await loadProject(key);
  const experiment = findExperiment(partition, experimentId);
  if (experiment.status !== 'running') {
    throw new ConflictError(`Experiment ${experimentId} is ${experiment.status}: only a running one can be stopped.`);
  }
  const at = new Date().toISOString();
  const after = { ...experiment, status: 'stopped' as const, stoppedAt: at, updatedAt: at };
  const change = experimentChange(partition.project.projectId, writer, experiment, after);
  const outcome = await stopExperimentItem(scopeOf(partition), experimentId, at, change);
  if (outcome !== 'stopped') throw new ConflictError(`Experiment ${experimentId} is no longer running.`);
  return experimentView(after);
}
