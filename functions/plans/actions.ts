import * as z from 'zod';
import { positiveIdString } from '#domain/fields.ts';
import {
  addPlanFeatures,
  listPlanFeatures,
  removePlanFeature,
  updatePlanFeature,
} from '#domain/plans/plan-features.ts';
import { createPlan, deletePlan, duplicatePlan, listPlans, updatePlan } from '#domain/plans/plans.ts';
import {
  AddPlanFeaturesBody,
  AddPlanFeaturesForms,
  AddPlanFeaturesView,
  CreatePlanBody,
  DuplicatePlanBody,
  PlanFeatureDetailView,
  PlanView,
  UpdatePlanBody,
  UpdatePlanFeatureBody,
} from '#domain/plans/schemas.ts';
import { lazySchema } from '#domain/validation.ts';
import { listVersions } from '#domain/versions/list.ts';
import { migratePlan } from '#domain/versions/migrate.ts';
import { MigrateBody, MigrationPreview, MigrationStarted, VersionListView } from '#domain/versions/schemas.ts';
import { defineGroup, routesIn } from '#http/action.ts';
import { tagged, writerOf } from '#http/etag.ts';
import { ok, SuccessView, success } from '#http/responses.ts';
import { plansRoutes } from './routes.ts';

const RemoveFeatureQuery = lazySchema(() => z.object({ featureId: positiveIdString() }));

const route = routesIn(plansRoutes);

export const plans = defineGroup(plansRoutes, [
  route('GET /api/v1/projects/{slug}/plans', {
    doc: {
      operationId: 'listPlans',
      summary: "List a project's plans with their features",
      responses: { 200: () => z.strictObject({ plans: z.array(PlanView()) }) },
      etag: 'read',
    },
    run: async ({ project, headers }) => tagged(200, { plans: await listPlans(project) }, headers),
  }),
  route('POST /api/v1/projects/{slug}/plans', {
    doc: {
      operationId: 'createPlan',
      summary: 'Create a plan, optionally with features assigned',
      description:
        'Each `features` entry assigns a feature of the project (`multiplier` defaults to 1); an unknown `featureId` is 404.',
      responses: { 201: PlanView },
      etag: 'tagged',
      errors: ['limit_exceeded'],
    },
    body: CreatePlanBody,
    run: async ({ project, body, principal, headers }) =>
      tagged(201, await createPlan(project, body, writerOf(principal, headers))),
  }),
  route('PUT /api/v1/projects/{slug}/plans/{planId}', {
    doc: {
      operationId: 'updatePlan',
      summary: 'Update a plan',
      description: 'Partial: only the fields sent change.',
      responses: { 200: PlanView },
      etag: 'write',
      errors: ['conflict'],
    },
    body: UpdatePlanBody,
    run: async ({ project, path, body, principal, headers }) =>
      tagged(200, await updatePlan(project, path.planId, body, writerOf(principal, headers))),
  }),
  route('DELETE /api/v1/projects/{slug}/plans/{planId}', {
    doc: {
      operationId: 'deletePlan',
      summary: 'Delete a plan and its feature assignments',
      responses: { 200: SuccessView },
      etag: 'write',
    },
    run: async ({ project, path, principal, headers }) =>
      success(deletePlan(project, path.planId, writerOf(principal, headers))),
  }),
  route('POST /api/v1/projects/{slug}/plans/{planId}/duplicate', {
    doc: {
      operationId: 'duplicatePlan',
      summary: 'Copy a plan with its features',
      description: 'The copy is named "<name> (Copy)" unless the optional body names it.',
      responses: { 201: PlanView },
      etag: 'tagged',
      errors: ['limit_exceeded'],
    },
    body: DuplicatePlanBody,
    optionalBody: true,
    run: async ({ project, path, body, principal, headers }) =>
      tagged(201, await duplicatePlan(project, path.planId, body, writerOf(principal, headers))),
  }),
  route('GET /api/v1/projects/{slug}/plans/{planId}/features', {
    doc: {
      operationId: 'listPlanFeatures',
      summary: "List a plan's feature assignments",
      responses: { 200: () => z.strictObject({ features: z.array(PlanFeatureDetailView()) }) },
      etag: 'read',
    },
    run: async ({ project, path, headers }) =>
      tagged(200, { features: await listPlanFeatures(project, path.planId) }, headers),
  }),
  route('POST /api/v1/projects/{slug}/plans/{planId}/features', {
    doc: {
      operationId: 'addPlanFeatures',
      summary: 'Assign features to a plan',
      description:
        'One feature (`{featureId, multiplier}`) or several (`{features: [...]}`); features already assigned are skipped and counted.',
      body: AddPlanFeaturesForms,
      responses: { 200: AddPlanFeaturesView },
    },
    body: AddPlanFeaturesBody,
    run: async ({ project, path, body, principal, headers }) =>
      ok(await addPlanFeatures(project, path.planId, body.features, writerOf(principal, headers))),
  }),
  route('DELETE /api/v1/projects/{slug}/plans/{planId}/features', {
    doc: {
      operationId: 'removePlanFeature',
      summary: 'Remove a feature from a plan (the feature stays in the project)',
      responses: { 200: SuccessView },
      etag: 'write',
    },
    query: RemoveFeatureQuery,
    run: async ({ project, path, query, principal, headers }) =>
      success(removePlanFeature(project, path.planId, query.featureId, writerOf(principal, headers))),
  }),
  route('PUT /api/v1/projects/{slug}/plans/{planId}/features/{featureId}', {
    doc: {
      operationId: 'updatePlanFeature',
      summary: "Change a feature's multiplier in a plan",
      responses: { 200: PlanFeatureDetailView },
      etag: 'write',
    },
    body: UpdatePlanFeatureBody,
    run: async ({ project, path, body, principal, headers }) =>
      tagged(
        200,
        await updatePlanFeature(project, path.planId, path.featureId, body.multiplier, writerOf(principal, headers)),
      ),
  }),
  route('GET /api/v1/projects/{slug}/plans/{planId}/versions', {
    doc: {
      operationId: 'listPlanVersions',
      summary: "List a plan's versions with the customers holding each",
      description:
        'Newest first; the current version is always listed. `customers` counts the subscriptions (trialing, active, past_due) that hold the version.',
      responses: { 200: VersionListView },
    },
    run: async ({ project, path }) => ok(await listVersions(project, path.planId)),
  }),
  route('POST /api/v1/projects/{slug}/plans/{planId}/migrate', {
    doc: {
      operationId: 'migratePlan',
      summary: "Move a plan's customers to another version (dryRun: preview what it does to each)",
      description:
        "`dryRun: true` answers 200 with each customer's monthly price before and after, the features it loses and the limits its usage this month already passes, and changes nothing. Otherwise 202: customers move `now` or at `period_end` (Stripe subscriptions get the new price at once, prorated for `now`); large migrations continue in the background. Resending finishes what a cut-short one left.",
      responses: { 200: MigrationPreview, 202: MigrationStarted },
      // If-Match names the plan as its PUT answers it: a migration decided on a stale read is a 412.
      etag: 'write',
      errors: ['conflict', 'payments_not_configured', 'payment_provider_error'],
    },
    body: MigrateBody,
    optionalBody: true,
    run: async ({ project, path, body, principal, headers, ports, config }) => {
      const writer = writerOf(principal, headers);
      const result = await migratePlan(ports, project, path.planId, body, writer, config.MIGRATION_INLINE_MS);
      return result.dryRun ? ok(result.preview) : { status: 202, body: result.started };
    },
  }),
]);
