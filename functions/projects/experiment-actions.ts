import {
  createExperiment,
  getExperiment,
  listExperiments,
  startExperiment,
  stopExperiment,
  updateExperiment,
} from '#domain/experiments/experiments.ts';
import { getResults } from '#domain/experiments/results.ts';
import {
  CreateExperimentBody,
  ExperimentsView,
  ExperimentView,
  ResultsView,
  UpdateExperimentBody,
} from '#domain/experiments/schemas.ts';
import { routesIn } from '#http/action.ts';
import { writerOf } from '#http/etag.ts';
import { ok } from '#http/responses.ts';
import { projectsRoutes } from './routes.ts';

const route = routesIn(projectsRoutes);

const variantsDescription =
  '2-4 variants, keys 1-32 of `a-z 0-9 _ -`, unique; `weight` a positive whole number (a variant gets weight / sum of weights of the visitors); `plans` overrides `basePrice`, `freemiumDay` and `isVisible` of plans of this project (an unknown plan is 404). The first variant is the control.';

/** Pricing experiments (lifecycle.md §5): drafts, one running at a time, and their results. */
export const experimentActions = [
  route('GET /api/v1/projects/{slug}/experiments', {
    doc: {
      operationId: 'listExperiments',
      summary: "The project's pricing experiments, in id order",
      responses: { 200: ExperimentsView },
    },
    run: async ({ project }) => ok(await listExperiments(project)),
  }),
  route('POST /api/v1/projects/{slug}/experiments', {
    body: CreateExperimentBody,
    doc: {
      operationId: 'createExperiment',
      summary: 'Create a pricing experiment (a draft)',
      description: variantsDescription,
      responses: { 201: ExperimentView },
      errors: ['limit_exceeded'],
    },
    run: async ({ project, body, principal, headers }) =>
      ok(await createExperiment(project, body, writerOf(principal, headers)), 201),
  }),
  route('GET /api/v1/projects/{slug}/experiments/{experimentId}', {
    doc: { operationId: 'getExperiment', summary: 'One pricing experiment', responses: { 200: ExperimentView } },
    run: async ({ project, path }) => ok(await getExperiment(project, path.experimentId)),
  }),
  route('PUT /api/v1/projects/{slug}/experiments/{experimentId}', {
    body: UpdateExperimentBody,
    doc: {
      operationId: 'updateExperiment',
      summary: 'Edit a draft (partial); a running or stopped experiment is a 409',
      description: variantsDescription,
      responses: { 200: ExperimentView },
      errors: ['conflict'],
    },
    run: async ({ project, path, body, principal, headers }) =>
      ok(await updateExperiment(project, path.experimentId, body, writerOf(principal, headers))),
  }),
  route('POST /api/v1/projects/{slug}/experiments/{experimentId}/start', {
    doc: {
      operationId: 'startExperiment',
      summary: 'Start a draft: visitors get their variants from now on',
      description: 'A project runs at most one experiment: 409 while another runs, and for anything but a draft.',
      responses: { 200: ExperimentView },
      errors: ['conflict'],
    },
    run: async ({ project, path, principal, headers }) =>
      ok(await startExperiment(project, path.experimentId, writerOf(principal, headers))),
  }),
  route('POST /api/v1/projects/{slug}/experiments/{experimentId}/stop', {
    doc: {
      operationId: 'stopExperiment',
      summary: 'Stop a running experiment: the page shows the plans as they are; customers keep what they bought',
      responses: { 200: ExperimentView },
      errors: ['conflict'],
    },
    run: async ({ project, path, principal, headers }) =>
      ok(await stopExperiment(project, path.experimentId, writerOf(principal, headers))),
  }),
  route('GET /api/v1/projects/{slug}/experiments/{experimentId}/results', {
    doc: {
      operationId: 'getExperimentResults',
      summary:
        'Per variant: distinct visitors, checkouts, paid subscriptions, conversion with a 95% Wilson interval, MRR',
      description:
        'Counts are exact: each visitor, checkout session and paid (`active` or `past_due`) subscription once. `probabilityBest`: the posterior probability that each variant has the highest conversion, under Beta(1,1) priors, from 20,000 draws of a fixed-seed generator.',
      responses: { 200: ResultsView },
    },
    run: async ({ project, path }) => ok(await getResults(project, path.experimentId)),
  }),
] as const;
