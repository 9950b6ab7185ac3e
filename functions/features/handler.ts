import { createFeature, deleteFeature, listFeatures, updateFeature } from '#domain/features/features.ts';
import { CreateFeatureBody, UpdateFeatureBody } from '#domain/features/schemas.ts';
import { parse } from '#domain/validation.ts';
import { createGroupHandler } from '#http/group-handler.ts';
import { featureIdOf, projectKey } from '#http/params.ts';
import { created, ok, success } from '#http/responses.ts';

export const handler = createGroupHandler('features', {
  'GET /api/v1/projects/{slug}/features': {
    run: async ({ principal, path }) => ok({ features: await listFeatures(projectKey(principal, path)) }),
  },
  'POST /api/v1/projects/{slug}/features': {
    body: 'required',
    run: async ({ principal, path, body }) => {
      const input = parse(CreateFeatureBody, body);
      return created(await createFeature(projectKey(principal, path), input));
    },
  },
  'PUT /api/v1/projects/{slug}/features/{featureId}': {
    body: 'required',
    run: async ({ principal, path, body }) => {
      const input = parse(UpdateFeatureBody, body);
      return ok(await updateFeature(projectKey(principal, path), featureIdOf(path), input));
    },
  },
  'DELETE /api/v1/projects/{slug}/features/{featureId}': {
    run: async ({ principal, path }) => {
      await deleteFeature(projectKey(principal, path), featureIdOf(path));
      return success();
    },
  },
});
