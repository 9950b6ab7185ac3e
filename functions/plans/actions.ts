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
import { created, ok, success } from '#http/responses.ts';

const RemoveFeatureQuery = z.object({ featureId: positiveIdString });

export const plans = defineGroup('plans', [
  route('GET /api/v1/projects/{slug}/plans', {
    run: async ({ project }) => ok({ plans: await listPlans(project) }),
  }),
  route('POST /api/v1/projects/{slug}/plans', {
    body: CreatePlanBody,
    run: async ({ project, body }) => created(await createPlan(project, body)),
  }),
  route('PUT /api/v1/projects/{slug}/plans/{planId}', {
    body: UpdatePlanBody,
    run: async ({ project, path, body }) => ok(await updatePlan(project, path.planId, body)),
  }),
  route('DELETE /api/v1/projects/{slug}/plans/{planId}', {
    run: async ({ project, path }) => {
      await deletePlan(project, path.planId);
      return success();
    },
  }),
  route('POST /api/v1/projects/{slug}/plans/{planId}/duplicate', {
    body: DuplicatePlanBody,
    optionalBody: true,
    run: async ({ project, path, body }) => created(await duplicatePlan(project, path.planId, body)),
  }),
  route('GET /api/v1/projects/{slug}/plans/{planId}/features', {
    run: async ({ project, path }) => ok({ features: await listPlanFeatures(project, path.planId) }),
  }),
  route('POST /api/v1/projects/{slug}/plans/{planId}/features', {
    body: AddPlanFeaturesBody,
    run: async ({ project, path, body }) => ok(await addPlanFeatures(project, path.planId, body.features)),
  }),
  route('DELETE /api/v1/projects/{slug}/plans/{planId}/features', {
    query: RemoveFeatureQuery,
    run: async ({ project, path, query }) => {
      await removePlanFeature(project, path.planId, query.featureId);
      return success();
    },
  }),
  route('PUT /api/v1/projects/{slug}/plans/{planId}/features/{featureId}', {
    body: UpdatePlanFeatureBody,
    run: async ({ project, path, body }) =>
      ok(await updatePlanFeature(project, path.planId, path.featureId, body.multiplier)),
  }),
]);
