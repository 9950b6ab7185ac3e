import { createFeature, deleteFeature, listFeatures, updateFeature } from '#domain/features/features.ts';
import { CreateFeatureBody, UpdateFeatureBody } from '#domain/features/schemas.ts';
import { defineGroup, route } from '#http/action.ts';
import { created, ok, success } from '#http/responses.ts';

export const features = defineGroup('features', [
  route('GET /api/v1/projects/{slug}/features', {
    run: async ({ project }) => ok({ features: await listFeatures(project) }),
  }),
  route('POST /api/v1/projects/{slug}/features', {
    body: CreateFeatureBody,
    run: async ({ project, body }) => created(await createFeature(project, body)),
  }),
  route('PUT /api/v1/projects/{slug}/features/{featureId}', {
    body: UpdateFeatureBody,
    run: async ({ project, path, body }) => ok(await updateFeature(project, path.featureId, body)),
  }),
  route('DELETE /api/v1/projects/{slug}/features/{featureId}', {
    run: async ({ project, path }) => {
      await deleteFeature(project, path.featureId);
      return success();
    },
  }),
]);
