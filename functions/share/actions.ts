import * as z from 'zod';
import { ShareQuery } from '#domain/experiments/visitor.ts';
import { tableIsHealthy } from '#domain/health.ts';
import { ShareView } from '#domain/share/schemas.ts';
import { getShareData } from '#domain/share/share.ts';
import { lazySchema } from '#domain/validation.ts';
import { defineGroup, routesIn } from '#http/action.ts';
import { tagged } from '#http/etag.ts';
import { preflight } from '#http/preflight.ts';
import { ok } from '#http/responses.ts';
import { serveStaticAsset } from '#http/static-asset.ts';
import { demoPage } from './demo-page.ts';
import { shareRoutes } from './routes.ts';
import { widgetAsset } from './widget-asset.ts';

const HealthView = lazySchema(() => z.strictObject({ status: z.enum(['ok', 'unavailable']) }));

/** Short enough that an edit shows on the pricing page within half a minute. */
const CACHE_CONTROL = 'public, max-age=30';
/** A visitor's own variant of the page: no shared cache may keep it or hand it to another visitor. */
const PERSONAL_CACHE_CONTROL = 'private, no-store';

/**
 * The script URL is not versioned (customers paste it once), so a day of freshness, then a
 * week of serving the cached copy while it revalidates by ETag in the background.
 */
const WIDGET_CACHE_CONTROL = 'public, max-age=86400, stale-while-revalidate=604800';

/**
 * Names the running experiment on the answer everyone shares, outside its body (whose shape the
 * contract fixes): a client with a visitor id asks again for that visitor's variant.
 */
const EXPERIMENT_HEADER = 'pricing-experiment';

const notModified = { description: 'Not modified: the copy named by If-None-Match is current.' };

/** The widget's read endpoint, the widget itself and its demo page. Also answers requests no route matches (the `$default` route). */
const route = routesIn(shareRoutes);

export const share = defineGroup(shareRoutes, [
  route('GET /api/share/{shareId}', {
    query: ShareQuery,
    doc: {
      operationId: 'getShareView',
      summary: 'The public pricing data of an active project (what the widget reads)',
      description:
        "No key. Cached for 30 s; answers carry an ETag and honour If-None-Match. While an experiment runs, an answer without `visitor` is the control's plans, the same for everyone and cached as usual, and carries the header `Pricing-Experiment: <experiment id>`: ask again with `visitor` (1-64 of `A-Z a-z 0-9 _ -`, the widget's random id) for the visitor's variant, named in `experiment` and `private, no-store`. Without a running experiment `visitor` changes nothing and the header is absent.",
      responses: { 200: ShareView, 304: notModified },
    },
    run: async ({ path, query, headers }) => {
      const { view, personal, experimentId } = await getShareData(path.shareId, query.visitor);
      return tagged(200, view, headers, {
        'cache-control': personal ? PERSONAL_CACHE_CONTROL : CACHE_CONTROL,
        ...(experimentId === undefined ? {} : { [EXPERIMENT_HEADER]: String(experimentId) }),
      });
    },
  }),
  route('OPTIONS /api/share/{shareId}', preflight('shareViewPreflight', ['GET'], ['Content-Type', 'If-None-Match'])),
  route('GET /widget.js', {
    doc: {
      operationId: 'getWidget',
      summary: 'The embeddable pricing widget script',
      responses: { 200: { description: 'The widget.', contentType: 'text/javascript' }, 304: notModified },
    },
    run: async ({ headers, config }) =>
      serveStaticAsset(widgetAsset(config.WIDGET_FILE), headers, {
        'content-type': 'text/javascript; charset=utf-8',
        'cache-control': WIDGET_CACHE_CONTROL,
      }),
  }),
  route('GET /demo/{shareId}', {
    doc: {
      operationId: 'getDemoPage',
      summary: 'A plain host page with the widget embedded, for trying a pricing page',
      responses: { 200: { description: 'The page.', contentType: 'text/html' } },
    },
    run: async ({ path, query }) => demoPage(path.shareId, query.session_id, query.customer),
  }),
  route('GET /', {
    doc: {
      operationId: 'getServiceInfo',
      summary: "The API's name and where its OpenAPI document is",
      responses: { 200: () => z.strictObject({ name: z.string(), docs: z.string() }) },
    },
    run: async () => ok({ name: 'Pricing plan service API', docs: '/openapi.json' }),
  }),
  route('GET /health', {
    doc: {
      operationId: 'getHealth',
      summary: 'Whether the service reaches its table: 200 when it does, else 503',
      responses: {
        200: HealthView,
        503: HealthView,
      },
    },
    run: async () => {
      const healthy = await tableIsHealthy();
      return {
        status: healthy ? 200 : 503,
        body: { status: healthy ? 'ok' : 'unavailable' },
        headers: { 'cache-control': 'no-store' },
      };
    },
  }),
]);
