import { defineGroup, routesIn } from '#http/action.ts';
import { gzippedStaticAsset, type StaticAsset, serveStaticAsset } from '#http/static-asset.ts';
import { openApiGzipBase64 } from './openapi-gzip.ts';
import { docsRoutes } from './routes.ts';

let asset: StaticAsset | undefined;

/**
 * docs/openapi.json as served (compact JSON), which the bundle carries gzipped (`npm run
 * openapi` writes openapi-gzip.ts): those bytes are the gzip answer, inflated once, at the
 * first request, for the plain one and the ETag (docs/decisions.md, "Bundles and cold starts").
 */
export function openApiAsset(): StaticAsset {
  asset ??= gzippedStaticAsset(Buffer.from(openApiGzipBase64, 'base64'));
  return asset;
}

const route = routesIn(docsRoutes);

export const docs = defineGroup(docsRoutes, [
  route('GET /openapi.json', {
    doc: {
      operationId: 'getOpenApiDocument',
      summary: 'This document: OpenAPI 3.1',
      responses: {
        200: { description: 'The OpenAPI document.', contentType: 'application/json' },
        304: { description: 'Not modified: the copy named by If-None-Match is current.' },
      },
    },
    run: async ({ headers }) =>
      serveStaticAsset(openApiAsset(), headers, {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'public, max-age=300',
      }),
  }),
]);
