import { writeFileSync } from 'node:fs';
import { generatedFiles } from '#dev/openapi/generate.ts';

/**
 * `npm run openapi`: regenerates docs/openapi.json from the route declarations, then the
 * client's types (client/schema.d.ts) and the reference (docs/api.md) from the document.
 * tests/unit/openapi.test.ts fails while any of them differs from what this writes.
 */
for (const [file, text] of Object.entries(await generatedFiles())) {
  writeFileSync(new URL(`../${file}`, import.meta.url), text);
  console.log(`wrote ${file}`);
}
