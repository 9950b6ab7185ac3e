import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

/**
 * shared/contract is what the server and the browser bundle share, so it depends on nothing:
 * no zod, no node:, no other layer, only its own files. The widget depends on the contract
 * and nothing else of shared/. TypeScript's own scanner finds every import, export-from,
 * require(), import() and triple-slash reference, in type positions too.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const contractDir = join(root, 'shared', 'contract');
const widgetDir = join(root, 'widget', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(dir, file));
}

function specifiers(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return [
    ...info.importedFiles,
    ...info.referencedFiles,
    ...info.typeReferenceDirectives,
    ...info.libReferenceDirectives,
  ].map((ref) => ref.fileName);
}

/** Where a specifier lands, for the two forms the rules allow: relative, or the #contract alias. */
function target(file: string, specifier: string): string | undefined {
  if (specifier.startsWith('./') || specifier.startsWith('../')) return resolve(dirname(file), specifier);
  if (specifier.startsWith('#contract/')) return join(contractDir, specifier.slice('#contract/'.length));
  return undefined;
}

function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..');
}

/** Every import of `files` that does not land on an existing file inside one of `allowed`. */
function forbiddenImports(files: string[], allowed: string[]): string[] {
  return files.flatMap((file) =>
    specifiers(file)
      .filter((specifier) => {
        const path = target(file, specifier);
        return !(path && existsSync(path) && allowed.some((dir) => isInside(dir, path)));
      })
      .map((specifier) => `${relative(root, file)} imports ${specifier}`),
  );
}

describe('import boundaries', () => {
  test('the scanner sees every form of import', () => {
    const text = [
      "import type { A } from 'zod';",
      "export { b } from 'node:fs';",
      "type C = import('x').C;",
      "const d = require('y');",
      "const e = await import('z');",
      "import './side-effect.ts';",
    ].join('\n');
    expect(ts.preProcessFile(text, true, true).importedFiles.map((ref) => ref.fileName)).toEqual([
      'zod',
      'node:fs',
      'x',
      'y',
      'z',
      './side-effect.ts',
    ]);
  });

  test('shared/contract imports nothing but its own files', () => {
    const files = sourceFiles(contractDir);
    expect(files.length).toBeGreaterThan(0);
    expect(forbiddenImports(files, [contractDir])).toEqual([]);
  });

  test('the widget imports nothing of shared/ but shared/contract', () => {
    const files = sourceFiles(widgetDir);
    expect(files.length).toBeGreaterThan(0);
    expect(forbiddenImports(files, [widgetDir, contractDir])).toEqual([]);
  });
});
