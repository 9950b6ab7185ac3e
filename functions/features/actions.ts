import * as z from 'zod';
import { createFeature, deleteFeature, listFeatures, updateFeature } from '#domain/features/features.ts';
import { CreateFeatureBody, FeatureView, UpdateFeatureBody } from '#domain/features/schemas.ts';
import { defineGroup, route } from '#http/action.ts';
import { created, ok, SuccessView, success } from '#http/responses.ts';

export const features = defineGroup('features', [
  route('GET /api/v1/projects/{slug}/features', {
    doc: {
      operationId: 'listFeatures',
      summary: "List a project's features",
      responses: { 200: z.strictObject({ features: z.array(FeatureView) }) },
    },
    run: async ({ project }) => ok({ features: await listFeatures(project) }),
  }),
  route('POST /api/v1/projects/{slug}/features', {
    body: CreateFeatureBody,
    doc: {
      operationId: 'createFeature',
      summary: 'Create a feature',
      description:
        'Countable fields (`usageCount`, `condition`, `countPrice`, `eventAggregationMethod`) are flat here and inside `countableData` in answers.',
      responses: { 201: FeatureView },
      errors: ['limit_exceeded'],
    },
    run: async ({ project, body }) => created(await createFeature(project, body)),
  }),
  route('PUT /api/v1/projects/{slug}/features/{featureId}', {
    body: UpdateFeatureBody,
    doc: {
      operationId: 'updateFeature',
      summary: 'Update a feature',
      description: 'Partial: only the fields sent change.',
      responses: { 200: FeatureView },
    },
    run: async ({ project, path, body }) => ok(await updateFeature(project, path.featureId, body)),
  }),
  route('DELETE /api/v1/projects/{slug}/features/{featureId}', {
    doc: {
      operationId: 'deleteFeature',
      summary: 'Delete a feature and its assignments to plans',
      responses: { 200: SuccessView },
    },
    run: async ({ project, path }) => {
      await deleteFeature(project, path.featureId);
      return success();
    },
  }),
]);
