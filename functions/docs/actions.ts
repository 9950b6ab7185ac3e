import { defineGroup, route } from '#http/action.ts';
import { serveStaticAsset, staticAsset } from '#http/static-asset.ts';
import document from '../../docs/openapi.json' with { type: 'json' };

/** Built from the committed document once per process (init), not per request. */
const asset = staticAsset(JSON.stringify(document));

/** The OpenAPI document: its own function, so no other bundle carries the document. */
export const docs = defineGroup('docs', [
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
      serveStaticAsset(asset, headers, {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'public, max-age=300',
      }),
  }),
]);
