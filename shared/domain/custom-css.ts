/// <reference path="../types/css-tree-entry-points.d.ts" />
import type { Atrule, CssNode, Declaration, List, Rule } from 'css-tree';
import parse from 'css-tree/parser';
import * as z from 'zod';
import { limits } from '#contract/limits.ts';
import { lazySchema } from './validation.ts';

/**
 * The customCSS rule, checked when a theme is written: a project's CSS restyles
 * the widget inside its box, and can neither move the widget out of it, raise it over the page,
 * nor load anything. The CSS is parsed with css-tree (the browser's grammar, as tolerant); every
 * name is compared with its escapes decoded and case folded, so `POSITION`, `posit\ion` and
 * `\75 rl(` are what a browser reads them as. See docs/decisions.md "customCSS".
 */

/**
 * Visits `node`, then its fields in order (each a node or a List of nodes), depth first: the visit
 * css-tree's `walk(node, enter)` makes, as tests/unit/custom-css.test.ts checks. Ours, because the
 * walker's entry point brings every node type's structure and generator into the projects
 * function's bundle, past its cold-start budget. Recursive like css-tree's, so nesting too deep
 * for the stack is still a RangeError (caught below).
 */
export function walk(node: CssNode, enter: (node: CssNode) => void): void {
  enter(node);
  for (const key in node) {
    if (key === 'loc' || key === 'type') continue;
    const field = (node as unknown as Record<string, unknown>)[key];
    if (isList(field)) {
      field.forEach((child) => {
        walk(child, enter);
      });
    } else if (isNode(field)) walk(field, enter);
  }
}

const isNode = (value: unknown): value is CssNode =>
  typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
const isList = (value: unknown): value is List<CssNode> =>
  typeof value === 'object' && value !== null && typeof (value as { forEach?: unknown }).forEach === 'function';

/** At most this many problems are listed; one more detail says how many were left out. */
export const customCssProblemsShown = 10;

/** At-rules that only group, condition or name rules. Anything else (@import, @font-face, @namespace, @scope) is refused. */
const allowedAtRules = new Set([
  'media',
  'supports',
  'layer',
  'container',
  'keyframes',
  'property',
  'starting-style',
  'counter-style',
]);

/** Functions that fetch a resource: url() is its own node; these take a plain string. */
const loadingFunctions = new Set(['url', 'src', 'image', 'image-set', 'cross-fade', 'element']);

/** Selectors in these pseudo-classes reach the widget element itself (the shadow host). */
const hostPseudoClasses = new Set(['host', 'host-context', 'scope']);

/**
 * What a rule on the host may set: the theme's custom properties, colors, text, backgrounds,
 * borders and padding, all drawn inside the element's box. Margins, display and position are
 * checked by value below; anything else (transform, inset, z-index, box-shadow, outline, filter,
 * width, animation, contain, overflow, all…) could draw outside the box or undo its containment.
 */
const hostProperties =
  /^(?:--.+|color|opacity|visibility|cursor|(?:accent|caret)-color|color-scheme|background(?:-.+)?|border(?!-image)(?:-.+)?|padding(?:-.+)?|font(?:-.+)?|text-.+|letter-spacing|word-spacing|line-height|white-space|word-break|overflow-wrap|hyphens|tab-size|quotes|list-style(?:-.+)?|max-(?:width|height|inline-size|block-size)|box-sizing|transition(?:-.+)?|isolation)$/;
const hostDisplays = new Set(['block', 'flow-root', 'flex', 'grid', 'none']);
const hostPositions = new Set(['static', 'relative']);

/**
 * Text css-tree could not parse is kept as a Raw node; a browser may still read part of it. It is
 * accepted only when it mentions none of what these rules check (escapes decoded, comments removed).
 */
const riskyRaw = /(?:url|src|image|image-set|cross-fade|element)\s*\(|@|position|z-index|:host|:scope|&/;

const vendorPrefix = /^-(?:webkit|moz|ms|o)-/;

/** A CSS identifier as the browser reads it: escapes decoded, ASCII case folded, vendor prefix dropped. */
function plain(name: string): string {
  return decodeEscapes(name).toLowerCase().replace(vendorPrefix, '');
}

const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?(?:\*\/|$)/g, ' ');

function decodeEscapes(text: string): string {
  return text.replace(/\\(?:([0-9a-fA-F]{1,6})[ \t\n\r\f]?|([^\n\r\f]))/g, (_, hex: string | undefined, char = '') => {
    if (!hex) return char;
    const code = Number.parseInt(hex, 16);
    const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
    return String.fromCodePoint(valid ? code : 0xfffd);
  });
}

interface Scope {
  /** The rule applies to the host itself: its subject is :host, :host(), :host-context(), :scope or & of such a rule. */
  host: boolean;
  /** The rule's selector includes :host anywhere (`:host(.dark) .card`), or & of such a rule. */
  mentionsHost: boolean;
  /** The nearest style rule's selector, for messages; null at the top level and in at-rules outside rules. */
  selector: string | null;
}

interface Problem {
  line: number;
  message: string;
}

/** Every way `css` breaks the rule, in source order, as messages for the detail at `theme.customCSS`. */
export function customCssProblems(css: string): string[] {
  const problems: Problem[] = [];
  const source = (node: CssNode) =>
    node.loc ? withoutComments(css.slice(node.loc.start.offset, node.loc.end.offset)).replace(/\s+/g, ' ').trim() : '';
  const report = (node: CssNode, scope: Scope, what: string, why = 'is not allowed') => {
    const line = node.loc?.start.line ?? 1;
    const where = scope.selector ? `, in \`${shorten(scope.selector)}\`` : '';
    problems.push({ line, message: `\`${shorten(what)}\` ${why} (line ${line}${where})` });
  };

  const checkRaw = (node: CssNode, text: string, scope: Scope) => {
    const folded = decodeEscapes(withoutComments(text)).toLowerCase();
    const risky = riskyRaw.exec(folded)?.[0];
    if (scope.host)
      report(node, scope, text, 'cannot be parsed, and a rule on `:host` must be (start nested rules with `&`)');
    else if (risky) report(node, scope, text, `cannot be parsed and mentions \`${risky.trim()}\``);
  };

  /** url(), image-set("…"), src("…")… anywhere under `node`, each reported once per node. */
  const checkLoading = (node: CssNode, scope: Scope) => {
    const found = new Set<string>();
    walk(node, (inner) => {
      if (inner.type === 'Url') found.add('url()');
      else if (inner.type === 'Function' && loadingFunctions.has(plain(inner.name))) found.add(`${inner.name}()`);
      else if (inner.type === 'Raw') checkRaw(inner, inner.value, scope);
    });
    for (const name of found) report(node, scope, name, 'is not allowed: customCSS may not load anything');
  };

  const checkDeclaration = (node: Declaration, scope: Scope) => {
    checkLoading(node.value, scope);
    const property = plain(node.property);
    const value = node.value.type === 'Value' ? node.value.children.toArray() : [];
    const keywords = value.map((part) => (part.type === 'Identifier' ? plain(part.name) : null));
    const written = `${node.property}: ${source(node.value)}`;
    if (property === 'position') {
      const keyword = keywords.length === 1 ? keywords[0] : null;
      if (!keyword) report(node, scope, written, 'is not allowed: `position` takes a single keyword here');
      else if (keyword === 'fixed') report(node, scope, written);
      else if (scope.mentionsHost && !hostPositions.has(keyword)) report(node, scope, written, mentioningHost);
      return;
    }
    if (property === 'z-index' && scope.mentionsHost) report(node, scope, node.property, mentioningHost);
    if (!scope.host || property === 'z-index') return;
    if (property === 'display') {
      if (keywords.length !== 1 || !hostDisplays.has(keywords[0] ?? '')) {
        report(node, scope, written, 'is not allowed on `:host` (block, flow-root, flex, grid or none)');
      }
    } else if (property.startsWith('margin')) {
      if (!value.every(isNonNegativeLength)) {
        report(node, scope, written, 'is not allowed on `:host`: margins there are auto or non-negative lengths');
      }
    } else if (!hostProperties.test(property)) {
      report(node, scope, node.property, 'is not allowed in a rule on `:host`');
    }
  };

  const visitRule = (node: Rule, scope: Scope) => {
    if (node.prelude.type === 'Raw') checkRaw(node.prelude, node.prelude.value, scope);
    visitList(node.block.children, { ...hostReach(node.prelude, scope), selector: source(node.prelude) });
  };

  const visitAtrule = (node: Atrule, scope: Scope) => {
    const name = plain(node.name);
    if (!allowedAtRules.has(name)) {
      report(node, scope, `@${node.name}`);
      return;
    }
    if (node.prelude) checkLoading(node.prelude, scope);
    // Keyframe selectors (from, 50%) are not rules on the host: their animation is what a rule applies.
    const inner = name === 'keyframes' ? { host: false, mentionsHost: false, selector: `@${node.name}` } : scope;
    if (node.block) visitList(node.block.children, inner);
  };

  const visitList = (children: List<CssNode>, scope: Scope) => {
    children.forEach((node) => {
      if (node.type === 'Rule') visitRule(node, scope);
      else if (node.type === 'Atrule') visitAtrule(node, scope);
      else if (node.type === 'Declaration') checkDeclaration(node, scope);
      else if (node.type === 'Raw') checkRaw(node, node.value, scope);
    });
  };

  try {
    clearStaleToken(css.length);
    const tree = parse(css, { positions: true, parseCustomProperty: true, onParseError: () => {} });
    if (tree.type === 'StyleSheet') visitList(tree.children, { host: false, mentionsHost: false, selector: null });
  } catch (error) {
    // Thousands of nested blocks or functions overflow the parser's (and a browser's) recursion.
    if (!(error instanceof RangeError)) throw error;
    return ['nests blocks, selectors or functions too deeply to be checked'];
  }
  problems.sort((a, b) => a.line - b.line);
  return problems.map((problem) => problem.message);
}

/**
 * css-tree keeps one token buffer for every parse in the process and, balancing the brackets of a
 * text of length L, reads the token type at index L, left there by an earlier, longer parse: one
 * that opens a block can keep a malformed text from ever finishing (tests/unit/custom-css.test.ts).
 * Parsing L semicolons first (linear, so cheap) leaves the end-of-input token there, opening nothing.
 */
function clearStaleToken(length: number): void {
  parse(';'.repeat(length), { onParseError: () => {} });
}

const mentioningHost = 'is not allowed in a rule whose selector includes `:host`';

/**
 * Whether a rule's selector list applies to the host (a selector whose subject, its last compound
 * selector, holds a host pseudo-class or the `&` of a host rule) or mentions it anywhere. `&` is
 * the enclosing rule's selector; at the top level it means :scope, the host.
 */
function hostReach(prelude: CssNode, scope: Scope): Pick<Scope, 'host' | 'mentionsHost'> {
  const topLevel = scope.selector === null;
  const parentHost = topLevel || scope.host;
  const parentMentions = topLevel || scope.mentionsHost;
  if (prelude.type !== 'SelectorList') {
    // Unparsed: assume the worst when it could name the host.
    const maybe = /host|scope|&/i.test(decodeEscapes(prelude.type === 'Raw' ? prelude.value : ''));
    return { host: scope.host || maybe, mentionsHost: scope.mentionsHost || maybe };
  }
  let host = false;
  let mentionsHost = false;
  prelude.children.forEach((selector) => {
    if (selector.type !== 'Selector') return;
    const parts = selector.children.toArray();
    const lastCombinator = parts.findLastIndex((part) => part.type === 'Combinator');
    parts.forEach((part, index) => {
      const subject = index > lastCombinator;
      walk(part, (node) => {
        const named = node.type === 'PseudoClassSelector' && hostPseudoClasses.has(plain(node.name));
        const nesting = node.type === 'NestingSelector';
        if (named || (nesting && parentMentions)) mentionsHost = true;
        if (subject && (named || (nesting && parentHost))) host = true;
      });
    });
  });
  return { host, mentionsHost: mentionsHost || host };
}

function isNonNegativeLength(part: CssNode): boolean {
  if (part.type === 'Identifier') return plain(part.name) === 'auto';
  if (part.type === 'Number' || part.type === 'Dimension' || part.type === 'Percentage') {
    return !part.value.startsWith('-') && Number.parseFloat(part.value) >= 0;
  }
  return false;
}

function shorten(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

/** `theme.customCSS`: at most 20,000 characters, then one validation detail per problem (see above). */
export const customCss = lazySchema(() =>
  z
    .string()
    .max(limits.customCssMax, { error: `must be at most ${limits.customCssMax} characters`, abort: true })
    .superRefine((css, context) => {
      const problems = customCssProblems(css);
      // One detail per refused rule (validation.ts keeps issues marked `each` beside each other).
      for (const message of problems.slice(0, customCssProblemsShown)) {
        context.addIssue({ code: 'custom', message, params: { each: true } });
      }
      if (problems.length > customCssProblemsShown) {
        const more = problems.length - customCssProblemsShown;
        context.addIssue({
          code: 'custom',
          message: `and ${more} more: fix the ones above and send it again`,
          params: { each: true },
        });
      }
    }),
);
