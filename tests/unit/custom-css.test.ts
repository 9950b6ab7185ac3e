import { spawnSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { customCss, customCssProblems, customCssProblemsShown } from '#domain/custom-css.ts';
import { UpdateProjectBody } from '#domain/projects/schemas.ts';
import { parse } from '#domain/validation.ts';

/** The problems of one CSS text, or [] when it is accepted. */
const problems = (css: string) => customCssProblems(css);

describe('customCSS: refused', () => {
  test.each([
    // position: fixed, anywhere, however it is spelled
    ['.card { position: fixed }', '`position: fixed` is not allowed (line 1, in `.card`)'],
    [':host{POSITION:FIXED !important}', '`POSITION: FIXED` is not allowed (line 1, in `:host`)'],
    ['.a { posit\\ion: fixed }', '`posit\\ion: fixed` is not allowed (line 1, in `.a`)'],
    ['.a { position: \\66ixed }', 'is not allowed (line 1, in `.a`)'],
    ['.a { position: /* x */ fixed /* y */ }', '`position: fixed` is not allowed'],
    ['.a {\n  color: red;\n  position: fixed;\n}', '(line 3, in `.a`)'],
    ['.a { position: var(--p) }', '`position` takes a single keyword here'],
    ['@keyframes k { from { position: fixed } }', '`position: fixed` is not allowed (line 1, in `from`)'],
    ['@media (min-width: 1px) { .a { position: fixed } }', '`position: fixed` is not allowed (line 1, in `.a`)'],
    // rules on the host: position absolute | sticky, z-index, and whatever could leave the box
    [':host { position: absolute }', '`position: absolute` is not allowed in a rule whose selector includes `:host`'],
    [':host { position: -webkit-sticky }', '`position: -webkit-sticky` is not allowed in a rule whose selector'],
    [':host(.dark) .card { position: sticky }', '`position: sticky` is not allowed in a rule whose selector includes'],
    [
      ':host { z-index: 10 }',
      '`z-index` is not allowed in a rule whose selector includes `:host` (line 1, in `:host`)',
    ],
    [':host(.dark) { z-index: 10 }', '`z-index` is not allowed in a rule whose selector includes `:host`'],
    [':host .card { z-index: 10 }', '`z-index` is not allowed in a rule whose selector includes `:host`'],
    [':HOST-CONTEXT(body) { z-index: 10 }', '`z-index` is not allowed in a rule whose selector includes `:host`'],
    [':h\\ost { z-index: 10 }', '`z-index` is not allowed in a rule whose selector includes `:host`'],
    ['.x:is(:host) { z-index: 10 }', '`z-index` is not allowed in a rule whose selector includes `:host`'],
    [':scope { z-index: 10 }', '`z-index` is not allowed in a rule whose selector includes `:host`'],
    ['& { z-index: 10 }', '`z-index` is not allowed in a rule whose selector includes `:host` (line 1, in `&`)'],
    [':host { & .card { z-index: 2 } }', '`z-index` is not allowed in a rule whose selector includes `:host`'],
    [':host { inset: 0 }', '`inset` is not allowed in a rule on `:host`'],
    [':host { transform: translateY(-500px) }', '`transform` is not allowed in a rule on `:host`'],
    [':host { translate: 0 -500px }', '`translate` is not allowed in a rule on `:host`'],
    [':host { box-shadow: 0 0 0 100vmax red }', '`box-shadow` is not allowed in a rule on `:host`'],
    [':host { outline: 100px solid red }', '`outline` is not allowed in a rule on `:host`'],
    [':host { filter: drop-shadow(0 0 90px red) }', '`filter` is not allowed in a rule on `:host`'],
    [':host { -webkit-box-reflect: below }', '`-webkit-box-reflect` is not allowed in a rule on `:host`'],
    [':host { border-image: linear-gradient(red, red) 1 / 1 / 50px }', '`border-image` is not allowed in a rule on'],
    [':host { contain: none }', '`contain` is not allowed in a rule on `:host`'],
    [':host { overflow-clip-margin: 500px }', '`overflow-clip-margin` is not allowed in a rule on `:host`'],
    [':host { all: initial }', '`all` is not allowed in a rule on `:host`'],
    [':host { width: 300vw }', '`width` is not allowed in a rule on `:host`'],
    [':host { animation: move 1s }', '`animation` is not allowed in a rule on `:host`'],
    [':host { display: contents }', '`display: contents` is not allowed on `:host`'],
    [':host { margin-top: -500px }', 'margins there are auto or non-negative lengths'],
    [':host { margin: 0 calc(0px - 500px) }', 'margins there are auto or non-negative lengths'],
    [':host { margin: var(--m) }', 'margins there are auto or non-negative lengths'],
    // CSS nesting: & is the parent's selector, and nested at-rules keep it
    [':host { & .x { position: fixed } }', '`position: fixed` is not allowed (line 1, in `& .x`)'],
    [
      ':host { &:hover { transform: scale(2) } }',
      '`transform` is not allowed in a rule on `:host` (line 1, in `&:hover`)',
    ],
    [':host { @media (min-width: 1px) { z-index: 2 } }', '`z-index` is not allowed in a rule whose selector includes'],
    [':host { @media (min-width: 1px) { contain: none } }', '`contain` is not allowed in a rule on `:host`'],
    ['.a { :host & { z-index: 3 } }', 'cannot be parsed and mentions `:host`'],
    ['.a { .b { position: fixed } }', 'cannot be parsed and mentions `position`'],
    [':host { .b { color: red } }', 'cannot be parsed, and a rule on `:host` must be'],
    // loading anything
    ['.a { background: url(https://evil.example/x.png) }', '`url()` is not allowed: customCSS may not load anything'],
    ['.a { background: URL("x.png") }', '`url()` is not allowed'],
    ['.a { background: u\\rl("x.png") }', '`u\\rl()` is not allowed'],
    ['.a { background: \\75 rl(x.png) }', 'mentions `url(`'],
    ['.a { background: image-set("a.png" 1x) }', '`image-set()` is not allowed'],
    ['.a { background: -webkit-image-set("a.png" 1x) }', '`-webkit-image-set()` is not allowed'],
    ['.a { background: image("a.png") }', '`image()` is not allowed'],
    ['.a { mask: src("a.svg") }', '`src()` is not allowed'],
    ['.a { background: cross-fade("a.png", "b.png", 50%) }', '`cross-fade()` is not allowed'],
    ['.a { --later: url(x.png) }', '`url()` is not allowed'],
    ['@property --x { syntax: "<url>"; inherits: false; initial-value: url(x.png) }', '`url()` is not allowed'],
    ['@counter-style c { system: cyclic; symbols: url(a.svg) }', '`url()` is not allowed'],
    ['@import "https://evil.example/x.css";', '`@import` is not allowed (line 1)'],
    ['@IMPORT url(x.css);', '`@IMPORT` is not allowed (line 1)'],
    ['@\\69mport "x.css";', '`@\\69mport` is not allowed (line 1)'],
    ['@font-face { font-family: X; src: url(x.woff2) }', '`@font-face` is not allowed (line 1)'],
    ['@media screen { @font-face { font-family: X } }', '`@font-face` is not allowed'],
    ['@supports (display: grid) { @font-face { font-family: X } }', '`@font-face` is not allowed'],
    ['@layer a { @font-face { font-family: X } }', '`@font-face` is not allowed'],
    ['@container (min-width: 1px) { @font-face { font-family: X } }', '`@font-face` is not allowed'],
    ['.a { @font-face { font-family: X } }', '`@font-face` is not allowed (line 1, in `.a`)'],
    ['@namespace svg "http://www.w3.org/2000/svg";', '`@namespace` is not allowed'],
    ['@scope (:host) { :scope { z-index: 1 } }', '`@scope` is not allowed'],
    ['@document url-prefix() { .a { color: red } }', '`@document` is not allowed'],
  ])('%s', (css, message) => {
    const found = problems(css);
    expect(found.length, `${css} was accepted`).toBeGreaterThan(0);
    expect(found.join('\n')).toContain(message);
  });

  test('every problem is listed, in source order, each with its line', () => {
    const css = [
      '.a { background: url(x.png) }',
      ':host { z-index: 5; position: sticky }',
      '@import "y.css";',
      '.b { position: fixed }',
    ].join('\n');
    expect(problems(css)).toEqual([
      '`url()` is not allowed: customCSS may not load anything (line 1, in `.a`)',
      '`z-index` is not allowed in a rule whose selector includes `:host` (line 2, in `:host`)',
      '`position: sticky` is not allowed in a rule whose selector includes `:host` (line 2, in `:host`)',
      '`@import` is not allowed (line 3)',
      '`position: fixed` is not allowed (line 4, in `.b`)',
    ]);
  });

  test('thousands of nested blocks are refused, not a crash', () => {
    const deep = `.a{${'&{'.repeat(6000)}color:red${'}'.repeat(6001)}`;
    expect(deep.length).toBeLessThan(20_000);
    // Either the parser gives up on the innermost part (kept unparsed, which mentions `&`) or the
    // stack runs out; both are one problem, never a 500.
    const found = problems(deep);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/too deeply to be checked|cannot be parsed and mentions `&`/);
  });
});

describe('customCSS: accepted', () => {
  test.each([
    '',
    '.card { color: red }',
    '.card h3 { text-transform: uppercase; } .feature.excluded { text-decoration: line-through; }',
    // dev/seed-demo.ts
    '.card { box-shadow: 0 1px 3px rgb(15 23 42 / 0.08); }\n.header h2 { letter-spacing: -0.02em; }',
    // Markup is only text to the CSS parser (the widget never parses it as HTML).
    '</style><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"><style>.card h3 { color: rgb(0, 128, 0); }',
    // Inside the box anything goes: it is clipped there.
    '.card { position: absolute; z-index: 99; transform: scale(3); margin: -500px; box-shadow: 0 0 0 100vmax red }',
    '.card::after { content: "Best value"; position: absolute; inset: -10px }',
    '.badge { position: sticky !important; top: 0 }',
    '.a { position: relative } .b { position: static }',
    // Rules on the host within the allowed set
    ':host { --pricing-primary: #0F766E; color: #111; background: linear-gradient(#fff, #eee); padding: 1rem }',
    ':host { margin: 0 auto; max-width: 960px; border: 1px solid #ddd; border-radius: 8px; display: block }',
    ':host { font-family: Georgia, serif; letter-spacing: .01em; -webkit-font-smoothing: antialiased }',
    ':host { position: relative; transition: color .2s }',
    ':host { & .card { transform: scale(2); box-shadow: 0 0 9px red } }',
    ':host(.dark) .card { background: #111; outline: 2px solid red }',
    ':host .card { & { transform: scale(2) } }',
    '.a { &:hover { transform: scale(1.05) } }',
    '@media (max-width: 600px) { .plans { grid-template-columns: 1fr } }',
    '@supports (backdrop-filter: blur(1px)) { .card { backdrop-filter: blur(4px) } }',
    '@layer theme { .card { border-width: 2px } }',
    '@container (min-width: 400px) { .card { padding: 2rem } }',
    '@keyframes pulse { from { opacity: 1 } to { opacity: .5 } } .badge { animation: pulse 1s infinite }',
    '@property --glow { syntax: "<color>"; inherits: false; initial-value: red }',
    '.a { background-image: linear-gradient(red, blue), radial-gradient(circle, #fff, #000) }',
    '.a { font-family: "url(x)"; content: "@import url(x)" }',
    '.a { color: red',
    '/* :host { z-index: 1 } url(x) @import */ .a { color: red }',
  ])('%s', (css) => {
    expect(problems(css)).toEqual([]);
  });
});

describe('customCSS in a request body', () => {
  test('a refused customCSS is a validation error with one detail per problem at theme.customCSS', () => {
    let thrown: unknown;
    try {
      parse(UpdateProjectBody, { theme: { customCSS: ':host { position: fixed; z-index: 9 }' } });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({
      code: 'validation_error',
      message:
        'Invalid request body: theme.customCSS: `position: fixed` is not allowed (line 1, in `:host`) (and 1 more).',
      details: [
        { path: 'theme.customCSS', message: '`position: fixed` is not allowed (line 1, in `:host`)' },
        {
          path: 'theme.customCSS',
          message: '`z-index` is not allowed in a rule whose selector includes `:host` (line 1, in `:host`)',
        },
      ],
    });
  });

  test('at most 10 problems are listed, then one detail says how many more there are', () => {
    const css = Array.from({ length: 25 }, (_, i) => `.a${i} { position: fixed }`).join('\n');
    const result = customCss().safeParse(css);
    expect(result.success).toBe(false);
    const messages = result.error?.issues.map((issue) => issue.message) ?? [];
    expect(messages).toHaveLength(customCssProblemsShown + 1);
    expect(messages[9]).toBe('`position: fixed` is not allowed (line 10, in `.a9`)');
    expect(messages[10]).toBe('and 15 more: fix the ones above and send it again');
  });

  test('over 20,000 characters is only the length message (the CSS is not parsed)', () => {
    const result = customCss().safeParse(`.a { position: fixed }${' '.repeat(20_000)}`);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual(['must be at most 20000 characters']);
  });

  test('an accepted customCSS is stored as sent', () => {
    const css = ':host { --pricing-primary: red }\n.card { box-shadow: 0 1px 3px #0002 }';
    expect(UpdateProjectBody().parse({ theme: { customCSS: css } }).theme?.customCSS).toBe(css);
  });
});

test('a malformed customCSS checked after a longer one finishes (css-tree reuses its token buffer)', () => {
  // In a child process: a parse that never finishes would block this worker for good.
  const child = spawnSync(process.execPath, ['--import', 'tsx', 'tests/fixtures/custom-css-after-long.ts'], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(child.signal, 'the second check did not finish within 20 s').toBeNull();
  expect(child.status, child.stderr).toBe(0);
  const problems = JSON.parse(child.stdout) as string[];
  expect(problems.length).toBeGreaterThan(0);
  expect(problems[0]).toContain('cannot be parsed');
});
