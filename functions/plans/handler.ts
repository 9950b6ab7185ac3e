import { z } from 'zod';
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
import { parse } from '#domain/validation.ts';
import { createGroupHandler } from '#http/group-handler.ts';
import { featureIdOf, planIdOf, projectKey } from '#http/params.ts';
import { created, ok, success } from '#http/responses.ts';

const RemoveFeatureQuery = z.object({ featureId: positiveIdString });

export const handler = createGroupHandler('plans', {
  'GET /api/v1/projects/{slug}/plans': {
    run: async ({ principal, path }) => ok({ plans: await listPlans(projectKey(principal, path)) }),
  },
  'POST /api/v1/projects/{slug}/plans': {
    body: 'required',
    run: async ({ principal, path, body }) => {
      const input = parse(CreatePlanBody, body);
      return created(await createPlan(projectKey(principal, path), input));
    },
  },
  'PUT /api/v1/projects/{slug}/plans/{planId}': {
    body: 'required',
    run: async ({ principal, path, body }) => {
      const input = parse(UpdatePlanBody, body);
      return ok(await updatePlan(projectKey(principal, path), planIdOf(path), input));
    },
  },
  'DELETE /api/v1/projects/{slug}/plans/{planId}': {
    run: async ({ principal, path }) => {
      await deletePlan(projectKey(principal, path), planIdOf(path));
      return success();
    },
  },
  'POST /api/v1/projects/{slug}/plans/{planId}/duplicate': {
    body: 'optional',
    run: async ({ principal, path, body }) => {
      // An absent body takes the defaults; a JSON null is a body, and not an object.
      const input = parse(DuplicatePlanBody, body === undefined ? {} : body);
      return created(await duplicatePlan(projectKey(principal, path), planIdOf(path), input));
    },
  },
  'GET /api/v1/projects/{slug}/plans/{planId}/features': {
    run: async ({ principal, path }) =>
      ok({ features: await listPlanFeatures(projectKey(principal, path), planIdOf(path)) }),
  },
  'POST /api/v1/projects/{slug}/plans/{planId}/features': {
    body: 'required',
    run: async ({ principal, path, body }) => {
      const { features } = parse(AddPlanFeaturesBody, body);
      return ok(await addPlanFeatures(projectKey(principal, path), planIdOf(path), features));
    },
  },
  'DELETE /api/v1/projects/{slug}/plans/{planId}/features': {
    run: async ({ principal, path, query }) => {
      const { featureId } = parse(RemoveFeatureQuery, query, 'query string');
      await removePlanFeature(projectKey(principal, path), planIdOf(path), featureId);
      return success();
    },
  },
  'PUT /api/v1/projects/{slug}/plans/{planId}/features/{featureId}': {
    body: 'required',
    run: async ({ principal, path, body }) => {
      const { multiplier } = parse(UpdatePlanFeatureBody, body);
      return ok(await updatePlanFeature(projectKey(principal, path), planIdOf(path), featureIdOf(path), multiplier));
    },
  },
});
