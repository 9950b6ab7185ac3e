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
  CreatePlanBody,
  DuplicatePlanBody,
  UpdatePlanBody,
  UpdatePlanFeatureBody,
} from '#domain/plans/schemas.ts';
import { defineGroup, route } from '#http/action.ts';
import { projectKey } from '#http/params.ts';
import { created, ok, success } from '#http/responses.ts';

const RemoveFeatureQuery = z.object({ featureId: positiveIdString });

export const plans = defineGroup('plans', [
  route('GET /api/v1/projects/{slug}/plans', {
    run: async ({ principal, path }) => ok({ plans: await listPlans(projectKey(principal, path)) }),
  }),
  route('POST /api/v1/projects/{slug}/plans', {
    body: CreatePlanBody,
    run: async ({ principal, path, body }) => created(await createPlan(projectKey(principal, path), body)),
  }),
  route('PUT /api/v1/projects/{slug}/plans/{planId}', {
    body: UpdatePlanBody,
    run: async ({ principal, path, body }) => ok(await updatePlan(projectKey(principal, path), path.planId, body)),
  }),
  route('DELETE /api/v1/projects/{slug}/plans/{planId}', {
    run: async ({ principal, path }) => {
      await deletePlan(projectKey(principal, path), path.planId);
      return success();
    },
  }),
  route('POST /api/v1/projects/{slug}/plans/{planId}/duplicate', {
    body: DuplicatePlanBody,
    optionalBody: true,
    run: async ({ principal, path, body }) =>
      created(await duplicatePlan(projectKey(principal, path), path.planId, body)),
  }),
  route('GET /api/v1/projects/{slug}/plans/{planId}/features', {
    run: async ({ principal, path }) =>
      ok({ features: await listPlanFeatures(projectKey(principal, path), path.planId) }),
  }),
  route('POST /api/v1/projects/{slug}/plans/{planId}/features', {
    body: AddPlanFeaturesBody,
    run: async ({ principal, path, body }) =>
      ok(await addPlanFeatures(projectKey(principal, path), path.planId, body.features)),
  }),
  route('DELETE /api/v1/projects/{slug}/plans/{planId}/features', {
    query: RemoveFeatureQuery,
    run: async ({ principal, path, query }) => {
      await removePlanFeature(projectKey(principal, path), path.planId, query.featureId);
      return success();
    },
  }),
  route('PUT /api/v1/projects/{slug}/plans/{planId}/features/{featureId}', {
    body: UpdatePlanFeatureBody,
    run: async ({ principal, path, body }) =>
      ok(await updatePlanFeature(projectKey(principal, path), path.planId, path.featureId, body.multiplier)),
  }),
]);
