import { fileURLToPath } from 'node:url';
import { loadStaticAsset, type StaticAsset } from '#http/static-asset.ts';

let asset: StaticAsset | undefined;

/**
 * The built widget.js: in a Lambda, the copy CDK's bundling puts next to this function's
 * code; under `npm start` and in the tests, the file WIDGET_FILE names. Read on first use.
 */
export function widgetAsset(file: string | undefined): StaticAsset {
  asset ??= loadStaticAsset(file ?? fileURLToPath(new URL('./widget.js', import.meta.url)));
  return asset;
}
