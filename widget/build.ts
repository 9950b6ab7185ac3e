import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { type BuildOptions, build, buildSync } from 'esbuild';

const root = dirname(fileURLToPath(import.meta.url));

/** Where `npm start` and the tests put the built widget (gitignored); a Lambda gets its own copy. */
export const widgetOutFile = join(root, 'dist', 'widget.js');

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

/** For the CDK app, which synthesizes synchronously. */
export function buildWidgetSync(): string {
  return buildSync(options).outputFiles[0]?.text ?? '';
}

/** Builds widget.js into `file`; synchronous, as the CDK app's bundling hook needs. */
export function writeWidget(file = widgetOutFile): string {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, buildWidgetSync());
  return file;
}

/** The budget for what a visitor downloads. */
export const WIDGET_GZIP_BUDGET = 15 * 1024;

export interface WidgetSize {
  raw: number;
  gzip: number;
  brotli: number;
}

export async function widgetSize(code?: string): Promise<WidgetSize> {
  const text = Buffer.from(code ?? (await buildWidget()));
  return {
    raw: text.byteLength,
    gzip: gzipSync(text, { level: 9 }).byteLength,
    brotli: brotliCompressSync(text).byteLength,
  };
}
