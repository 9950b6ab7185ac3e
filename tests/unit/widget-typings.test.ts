import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, test } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const stubs = join(root, 'tests', 'fixtures', 'framework-types');

/**
 * widget/types/*.d.ts as a React 19, Vue or Svelte project's checker reads them: the module
 * augmentations resolve (against the few declarations of each framework they build on) and
 * give `pricing-table` its attributes, `share-id` required and typos refused.
 */
test('the shipped typings type <pricing-table> in React 19 JSX, Vue and Svelte templates', () => {
  const files = ['pricing-table', 'react', 'vue', 'svelte'].map((name) =>
    join(root, 'widget', 'types', `${name}.d.ts`),
  );
  const program = ts.createProgram([...files, join(stubs, 'usage.ts')], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    baseUrl: root,
    paths: {
      react: [join(stubs, 'react.d.ts')],
      vue: [join(stubs, 'vue.d.ts')],
      'svelte/elements': [join(stubs, 'svelte', 'elements.d.ts')],
    },
  });
  const diagnostics = ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  expect(diagnostics).toEqual([]);
});
