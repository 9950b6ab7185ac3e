/// <reference path="../../shared/types/css-tree-entry-points.d.ts" />
import type { CssNode } from 'css-tree';
import parse from 'css-tree/parser';
import cssTreeWalk from 'css-tree/walker';
import { describe, expect, test } from 'vitest';
import { walk } from '#domain/custom-css.ts';

/**
 * The customCSS check walks css-tree's trees with its own `walk` (shared/domain/custom-css.ts),
 * not css-tree's walker (15 KB of the projects bundle). Both must visit the same nodes in the
 * same order, or the check could see less, or report in another order: compared here, node by
 * node, on every kind of node the parser makes and on random CSS.
 */

const options = { positions: true, parseCustomProperty: true, onParseError: () => {} };

/** The index, in css-tree's own visit, of each node ours visits: 0, 1, 2… when the two agree. */
function visitOrder(css: string): { theirs: number; ours: number[] } {
  const tree = parse(css, options);
  const index = new Map<CssNode, number>();
  cssTreeWalk(tree, (node) => {
    index.set(node, index.size);
  });
  const ours: number[] = [];
  walk(tree, (node) => {
    ours.push(index.get(node) ?? -1);
  });
  return { theirs: index.size, ours };
}

const expectSameVisit = (css: string) => {
  const { theirs, ours } = visitOrder(css);
  // Compared by hand: on a mismatch, the first node where the visits part.
  const parted = ours.findIndex((index, i) => index !== i);
  expect({ css, parted, length: ours.length }).toEqual({ css, parted: -1, length: theirs });
};

const corpus = [
  '',
  '.card { color: red }',
  ':host { --pricing-primary: #0F766E; color: #111; background: linear-gradient(#fff, #eee) !important }',
  ':host(.dark) .card > h3 + p ~ span, a[href^="https" i]::after, li:nth-child(2n + 1 of .x):not(.y) { margin: -1px 2em 3% auto }',
  ':is(:host, .a):where(.b):has(> img) { z-index: 1 } :host-context(body.dark) { color: white }',
  '.a { &:hover { transform: scale(1.05) } & .b { color: red } }',
  '@media screen and (min-width: 600px) and (400px <= height < 800px), print and (orientation: landscape) { .a { b: c } }',
  '@supports (display: grid) and (not (display: inline-grid)) or selector(:has(a)) { .a { b: c } }',
  '@container card (min-width: 400px) { .a { b: c } } @layer base, theme; @layer theme { .a { b: c } }',
  '@keyframes k { from { opacity: 1 } 50% { opacity: .5 } to { opacity: 0 } } .x { animation: k 1s infinite }',
  '@property --g { syntax: "<color>"; inherits: false; initial-value: red }',
  '@font-face { font-family: x; src: url(x.woff2) format("woff2"); unicode-range: U+0025-00FF, u+4?? }',
  '@import url("y.css") layer(x) supports(display: grid) screen; @namespace svg url(http://www.w3.org/2000/svg);',
  '@page :first { margin: 1in } @scope (.a) to (.b) { img { c: d } } @starting-style { .a { opacity: 0 } }',
  '.a { width: calc(100% - (2 * var(--gap, 1rem))); aspect-ratio: 16 / 9; grid-area: 1 / 2 / span 3 }',
  '.a { background: image-set("a.png" 1x, "b.png" 2x), src("x"), cross-fade(url(a), url(b) 50%) }',
  '.a { --x: { a: b }; --y: [1, 2] (3); --z: ; content: "\\201C" attr(data-x) }',
  '.a { color: red',
  '} .a { color: red } {',
  '.a { ;;; color: ; : red; }',
  '@media { .a { } } @',
  '.a{b:c}/* x */.d{e:f}',
  '.a { position: \\66ixed } .b { posit\\ion: fixed } .c\\:d { e: f }',
  '\x3C!-- .a { b: c } --\x3E',
  ".a { b: url( x.png ) url('y') }",
  '#id.c1.c2[x][y=z] { top: +1.5e3px }',
  '.a { filter: drop-shadow(0 0 2px rgb(0 0 0 / 50%)) hue-rotate(90deg) }',
  ':root:not(:root:root) { a: b }',
  `.a{${'&{'.repeat(50)}color:red${'}'.repeat(51)}`,
  `.a{b:${'f('.repeat(40)}${')'.repeat(40)}}`,
];

describe('walk: the same visit as css-tree’s walker', () => {
  test('on every kind of node the parser makes', () => {
    for (const css of corpus) expectSameVisit(css);
  });

  test('on random CSS made of every kind of token', () => {
    const pieces = [
      '.a',
      '#b',
      'c',
      '*',
      '&',
      ':host',
      ':host(',
      ':is(',
      ':not(',
      ':nth-child(',
      '2n+1',
      'of',
      '::before',
      '[x',
      '=',
      '"s"',
      "'t'",
      ']',
      '>',
      '+',
      '~',
      ',',
      '{',
      '}',
      '(',
      ')',
      ';',
      ':',
      '!important',
      '@media',
      '@supports',
      '@import',
      '@keyframes',
      '@layer',
      '@container',
      '@font-face',
      'url(x)',
      'url(',
      'var(--x)',
      '--x',
      'calc(',
      '1px',
      '50%',
      '-2.5e3em',
      '0',
      'U+0-7F',
      '/',
      '*',
      '\\66',
      '/* c */',
      '\x3C!--',
      '--\x3E',
      'and',
      'not',
      'or',
      '(min-width:1px)',
      'red',
      '#fff',
      'rgb(0 0 0 / 5%)',
      ' ',
      '\n',
    ];
    // A fixed seed: the same 400 texts every run.
    let seed = 14;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 400; i++) {
      const length = 5 + (next() % 60);
      const css = Array.from({ length }, () => pieces[next() % pieces.length]).join(next() % 2 ? ' ' : '');
      expectSameVisit(css);
    }
  });
});
