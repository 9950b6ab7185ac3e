import { getShareData } from '#domain/share/share.ts';
import { defineGroup, route } from '#http/action.ts';
import { etagOf, ifNoneMatchHits } from '#http/etag.ts';
import { preflight } from '#http/preflight.ts';
import { serveStaticAsset } from '#http/static-asset.ts';
import { demoPage } from './demo-page.ts';
import { widgetAsset } from './widget-asset.ts';

/** Short enough that an edit shows on the pricing page within half a minute. */
const CACHE_CONTROL = 'public, max-age=30';

/**
 * The script URL is not versioned (customers paste it once), so a day of freshness, then a
 * week of serving the cached copy while it revalidates by ETag in the background.
 */
const WIDGET_CACHE_CONTROL = 'public, max-age=86400, stale-while-revalidate=604800';

/** The widget's read endpoint, the widget itself and its demo page. Also answers requests no route matches (the `$default` route). */
export const share = defineGroup('share', [
  route('GET /api/share/{shareId}', {
    run: async ({ path, headers }) => {
      const data = await getShareData(path.shareId);
      const etag = etagOf(data);
      const caching = { etag, 'cache-control': CACHE_CONTROL };
      if (ifNoneMatchHits(headers['if-none-match'], etag)) return { status: 304, headers: caching };
      return { status: 200, body: data, headers: caching };
    },
  }),
  route('OPTIONS /api/share/{shareId}', { run: preflight(['GET'], ['Content-Type', 'If-None-Match']) }),
  route('GET /widget.js', {
    run: async ({ headers, config }) =>
      serveStaticAsset(widgetAsset(config.WIDGET_FILE), headers, {
        'content-type': 'text/javascript; charset=utf-8',
        'cache-control': WIDGET_CACHE_CONTROL,
      }),
  }),
  route('GET /demo/{shareId}', {
    run: async ({ path, query }) => demoPage(path.shareId, query.session_id, query.customer),
  }),
]);
