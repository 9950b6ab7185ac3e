import * as z from 'zod';
import { createFeature, deleteFeature, listFeatures, updateFeature } from '#domain/features/features.ts';
import { CreateFeatureBody, FeatureView, UpdateFeatureBody } from '#domain/features/schemas.ts';
import { defineGroup, routesIn } from '#http/action.ts';
import { tagged, writerOf } from '#http/etag.ts';
import { SuccessView, success } from '#http/responses.ts';
import { featuresRoutes } from './routes.ts';

const route = routesIn(featuresRoutes);

export const features = defineGroup(featuresRoutes, [
  route('GET /api/v1/projects/{slug}/features', {
    doc: {
      operationId: 'listFeatures',
      summary: "List a project's features",
      responses: { 200: () => z.strictObject({ features: z.array(FeatureView()) }) },
      etag: 'read',
    },
    run: async ({ project, headers }) => tagged(200, { features: await listFeatures(project) }, headers),
  }),
  route('POST /api/v1/projects/{slug}/features', {
    body: CreateFeatureBody,
    doc: {
      operationId: 'createFeature',
      summary: 'Create a feature',
      description:
        'Countable fields (`usageCount`, `condition`, `countPrice`, `eventAggregationMethod`) are flat here and inside `countableData` in answers.',
      responses: { 201: FeatureView },
      etag: 'tagged',
      errors: ['limit_exceeded'],
    },
    run: async ({ project, body, principal, headers }) =>
      tagged(201, await createFeature(project, body, writerOf(principal, headers))),
  }),
  route('PUT /api/v1/projects/{slug}/features/{featureId}', {
    body: UpdateFeatureBody,
    doc: {
      operationId: 'updateFeature',
      summary: 'Update a feature',
      description: 'Partial: only the fields sent change.',
      responses: { 200: FeatureView },
      etag: 'write',
    },
    run: async ({ project, path, body, principal, headers }) =>
      tagged(200, await updateFeature(project, path.featureId, body, writerOf(principal, headers))),
  }),
  route('DELETE /api/v1/projects/{slug}/features/{featureId}', {
    doc: {
      operationId: 'deleteFeature',
      summary: 'Delete a feature and its assignments to plans',
      responses: { 200: SuccessView },
      etag: 'write',
    },
    run: async ({ project, path, principal, headers }) =>
      success(deleteFeature(project, path.featureId, writerOf(principal, headers))),
  }),
]);
