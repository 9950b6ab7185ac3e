/**
 * @types/css-tree types the package root only. Its parser and walker entry points (a small part
 * of the root's bundle: no lexer, no syntax data) export the same functions as default exports.
 */
declare module 'css-tree/parser' {
  import type { parse } from 'css-tree';

  const parser: typeof parse;
  export default parser;
}

declare module 'css-tree/walker' {
  import type { walk } from 'css-tree';

  const walker: typeof walk;
  export default walker;
}
