import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { type BuildOptions, build, buildSync } from 'esbuild';

const root = dirname(fileURLToPath(import.meta.url));

/**
 * widget.js: one minified classic script (an IIFE, so `document.currentScript` tells it its
 * own URL), for browsers with custom elements and shadow DOM. The share Lambda serves it
 * from GET /widget.js.
 */
const options = {
  entryPoints: [join(root, 'src', 'main.ts')],
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['es2020', 'chrome90', 'firefox90', 'safari15'],
  legalComments: 'none',
  charset: 'utf8',
  write: false,
  logLevel: 'silent',
} as const satisfies BuildOptions;

export async function buildWidget(): Promise<string> {
  const result = await build(options);
  return result.outputFiles[0]?.text ?? '';
}

/**
 * Builds widget.js into `file` (by default where `npm start` puts it, gitignored; the tests and
 * each Lambda get their own copy); synchronous, as the CDK app's bundling hook needs.
 */
export function writeWidget(file = join(root, 'dist', 'widget.js')): string {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, buildSync(options).outputFiles[0]?.text ?? '');
  return file;
}

/** The budget for what a visitor downloads. */
export const WIDGET_GZIP_BUDGET = 15 * 1024;

export async function widgetSize() {
  const text = Buffer.from(await buildWidget());
  return {
    raw: text.byteLength,
    gzip: gzipSync(text, { level: 9 }).byteLength,
    brotli: brotliCompressSync(text).byteLength,
  };
}
