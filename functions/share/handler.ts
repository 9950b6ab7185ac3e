import { getShareData } from '#domain/share/share.ts';
import { etagOf, ifNoneMatchHits } from '#http/etag.ts';
import { createGroupHandler } from '#http/group-handler.ts';
import { preflight } from '#http/preflight.ts';

/** Short enough that an edit shows on the pricing page within half a minute. */
const CACHE_CONTROL = 'public, max-age=30';

/** The widget's read endpoint. Also answers requests no route matches (the `$default` route). */
export const handler = createGroupHandler('share', {
  'GET /api/share/{shareId}': {
    run: async ({ path, headers }) => {
      const data = await getShareData(path.shareId);
      const etag = etagOf(data);
      const caching = { etag, 'cache-control': CACHE_CONTROL };
      if (ifNoneMatchHits(headers['if-none-match'], etag)) return { status: 304, headers: caching };
      return { status: 200, body: data, headers: caching };
    },
  },
  'OPTIONS /api/share/{shareId}': { run: preflight(['GET'], ['Content-Type', 'If-None-Match']) },
});
