import { createFeature, deleteFeature, listFeatures, updateFeature } from '#domain/features/features.ts';
import { CreateFeatureBody, UpdateFeatureBody } from '#domain/features/schemas.ts';
import { defineGroup, route } from '#http/action.ts';
import { projectKey } from '#http/params.ts';
import { created, ok, success } from '#http/responses.ts';

export const features = defineGroup('features', [
  route('GET /api/v1/projects/{slug}/features', {
    run: async ({ principal, path }) => ok({ features: await listFeatures(projectKey(principal, path)) }),
  }),
  route('POST /api/v1/projects/{slug}/features', {
    body: CreateFeatureBody,
    run: async ({ principal, path, body }) => created(await createFeature(projectKey(principal, path), body)),
  }),
  route('PUT /api/v1/projects/{slug}/features/{featureId}', {
    body: UpdateFeatureBody,
    run: async ({ principal, path, body }) =>
      ok(await updateFeature(projectKey(principal, path), path.featureId, body)),
  }),
  route('DELETE /api/v1/projects/{slug}/features/{featureId}', {
    run: async ({ principal, path }) => {
      await deleteFeature(projectKey(principal, path), path.featureId);
      return success();
    },
  }),
]);
