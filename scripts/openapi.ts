import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { documentModuleFile, documentModuleText, generatedFiles } from '#dev/openapi/generate.ts';

/**
 * `npm run openapi`: regenerates docs/openapi.json from the route declarations, then the
 * client's types (client/schema.d.ts), the reference (docs/api.md) and the gzipped copy the
 * docs function serves (functions/docs/openapi-gzip.ts) from the document.
 * tests/unit/openapi.test.ts fails while any of them differs from what this writes (the gzipped
 * copy: while what it inflates to differs, so another zlib's bytes are not a change to write).
 */
const unchanged = (file: string, text: string, url: URL) =>
  file === documentModuleFile &&
  existsSync(url) &&
  documentModuleText(readFileSync(url, 'utf8')) === documentModuleText(text);

for (const [file, text] of Object.entries(await generatedFiles())) {
  const url = new URL(`../${file}`, import.meta.url);
  if (unchanged(file, text, url)) continue;
  writeFileSync(url, text);
  console.log(`wrote ${file}`);
}
