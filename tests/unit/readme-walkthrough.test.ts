import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';

/**
 * The README's shell walk-through runs in one shell from top to bottom, each section
 * continuing the one before. These checks read its `sh` blocks in order, as a reader pastes
 * them, and catch what only shows when someone runs them: a variable read before any block
 * sets it, and a background job stopped by job number (`kill %1`), which names another job
 * once a second one has started.
 */

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The `sh` blocks, in the order of the README, without heredoc bodies (another language). */
function shellLines(): string[] {
  const lines: string[] = [];
  for (const [, block] of readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm)) {
    let heredocEnd: string | undefined;
    for (const line of (block as string).split('\n')) {
      if (heredocEnd !== undefined) {
        if (line.trim() === heredocEnd) heredocEnd = undefined;
        continue;
      }
      heredocEnd = /<<-?\s*'?(\w+)'?/.exec(line)?.[1];
      lines.push(line);
    }
  }
  return lines;
}

/** A line with its comment and its single-quoted text (which the shell does not expand) blanked. */
function expandable(line: string): string {
  let out = '';
  let single = false;
  let double = false;
  for (const char of line) {
    if (single) {
      if (char === "'") single = false;
      out += ' ';
      continue;
    }
    if (char === "'" && !double) {
      single = true;
      out += ' ';
      continue;
    }
    if (char === '"') double = !double;
    if (char === '#' && !double && (out === '' || /\s$/.test(out))) break;
    out += char;
  }
  return out;
}

/** What the reader's environment or npm start's configuration may already hold. */
const configured = new Set(
  [...readme.matchAll(/^\| `([A-Z][A-Z0-9_]*)`/gm)].map(([, name]) => name as string).concat(['STAGE', 'HOME']),
);

test('every variable the walk-through reads is set earlier in it', () => {
  const set = new Set<string>();
  const unset: string[] = [];
  for (const line of shellLines()) {
    // Command by command: `A=$(…) && echo "$A"` reads what the command before it set.
    for (const text of expandable(line).split(/&&|\|\||;/)) {
      for (const [, name] of text.matchAll(/\$\{?([A-Za-z_]\w*)/g)) {
        if (!set.has(name as string) && !configured.has(name as string)) unset.push(`${name} in: ${line.trim()}`);
      }
      for (const [, name] of text.matchAll(/(?:^|[\s(|])([A-Za-z_]\w*)=/g)) set.add(name as string);
      for (const [, name] of text.matchAll(/\bfor\s+([A-Za-z_]\w*)\s+in\b/g)) set.add(name as string);
    }
  }
  expect(unset).toEqual([]);
});

test('background jobs are stopped by their pid, not by job number', () => {
  expect(shellLines().filter((line) => /\bkill\s+%/.test(expandable(line)))).toEqual([]);
});
