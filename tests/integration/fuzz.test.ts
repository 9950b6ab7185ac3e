/**
 * Property-based fuzz pass over real HTTP: malformed and hostile requests against every
 * route that takes a body (and the one that takes a query), checking that the service
 * never answers 5xx, that every error has the one error shape of decisions.md, that every
 * response carries X-Request-Id, and that nothing that was rejected left a trace.
 *
 * Every request sent at the target project is one the service must reject, so the target
 * has to read back exactly as it did before the fuzz. Requests the service may accept
 * (hostile but valid text) go to a scratch owner instead, where each answer is checked
 * against what a GET reads back afterwards.
 *
 * Seeds are fixed (printed per property); FUZZ_SEED=<n> replays with another base seed.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makePlan, makeProject } from '../fixtures/factories.ts';
import { type Answer, sendRaw, utf8 } from '../fixtures/wire.ts';

const BASE_SEED = Number(process.env.FUZZ_SEED ?? 20_240_611);
const KIB = 1024;
/** decisions.md, Errors: bodies over 256 KiB are 413. */
const BODY_LIMIT = 256 * KIB;
/** FUZZ_RUNS_FACTOR=<n> multiplies every property's number of runs, for a deeper local pass. */
const RUNS_FACTOR = Number(process.env.FUZZ_RUNS_FACTOR ?? 1);
/** A request that gets no answer within this time is reported as a hang. */
const HANG_MS = 15_000;

// ---------------------------------------------------------------------------------------
// Wire level: bytes out, status + headers + body in.
// ---------------------------------------------------------------------------------------

interface Wire {
  method: string;
  path: string;
  /** A string is sent as UTF-8 (lone surrogates become U+FFFD, as any client would send them). */
  body?: string | Uint8Array;
  /** Default: application/json when there is a body; null sends no Content-Type at all. */
  contentType?: string | null;
  /** The whole Authorization header; default the target owner's write key; null sends none. */
  authorization?: string | null;
}

const byteLength = (body: string | Uint8Array) => (typeof body === 'string' ? utf8(body).length : body.length);
/** The answer a body that must be refused gets: 413 over the size limit, else 400. */
const refusal = (body: string | Uint8Array) =>
  byteLength(body) > BODY_LIMIT
    ? ({ status: 413, code: 'payload_too_large' } as const)
    : ({ status: 400, code: 'validation_error' } as const);
/** What the server reads from a string sent as UTF-8. */
const asServerSees = (text: string) => new TextDecoder().decode(utf8(text));

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function preview(body: Wire['body']): string {
  if (body === undefined) return '(no body)';
  const text = typeof body === 'string' ? body : `bytes:${Buffer.from(body).toString('hex')}`;
  const shown = text.length > 160 ? `${text.slice(0, 160)}… (${text.length} chars)` : text;
  return JSON.stringify(shown);
}

const describeWire = (wire: Wire) =>
  `${wire.method} ${wire.path.length > 200 ? `${wire.path.slice(0, 200)}…` : wire.path} ` +
  `content-type=${wire.contentType === undefined ? '(default)' : JSON.stringify(wire.contentType)} ` +
  `auth=${wire.authorization === undefined ? '(write key)' : JSON.stringify(wire.authorization?.slice(0, 60))} ` +
  `body=${preview(wire.body)}`;

/** decisions.md, Errors: the one error shape. `details` items are exactly { path, message }. */
const ErrorBody = z.strictObject({
  error: z.strictObject({
    code: z.string().regex(/^[a-z]+(?:_[a-z]+)*$/, 'snake_case'),
    message: z.string().min(1),
    details: z.array(z.strictObject({ path: z.string(), message: z.string() })).optional(),
  }),
});
type ErrorBody = z.infer<typeof ErrorBody>;

/** Attaches a short description for fast-check's counterexample report (bodies can be 300 KiB). */
function labelled<T extends object>(value: T, label: string): T {
  return Object.assign(value, { [fc.toStringMethod]: () => label });
}

/** The names of Object.prototype before anything ran: pollution would add to them. */
const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();

function expectNoPrototypePollution() {
  const probe = {} as Record<string, unknown>;
  expect(probe.polluted, 'Object.prototype.polluted').toBeUndefined();
  expect(probe.isAdmin, 'Object.prototype.isAdmin').toBeUndefined();
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeNames);
}

async function runProperty<Ts>(name: string, index: number, numRuns: number, property: fc.IAsyncProperty<Ts>) {
  const seed = BASE_SEED + index;
  const runs = Math.max(1, Math.round(numRuns * RUNS_FACTOR));
  console.info(`[fuzz] ${name}: seed=${seed} numRuns=${runs} (FUZZ_SEED=${BASE_SEED})`);
  await fc.assert(property, { seed, numRuns: runs });
  expectNoPrototypePollution();
}

// ---------------------------------------------------------------------------------------
// Bodies as JSON text, so keys such as __proto__ stay plain keys and numbers such as
// 1e400 or -0 reach the server exactly as written.
// ---------------------------------------------------------------------------------------

/** A field as [key, raw JSON text of the value]. */
type Field = readonly [key: string, raw: string];

const j = (value: unknown) => JSON.stringify(value);
const objectText = (fields: readonly Field[]) => `{${fields.map(([key, raw]) => `${j(key)}:${raw}`).join(',')}}`;
const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

const DEEP_5K = deepArray(5_000);
const DEEP_50K = deepArray(50_000);
const texts = (...values: unknown[]) => values.map(j);

/** Wrong types that no field of this API accepts. */
const NOT_SCALAR = ['[]', '{}', '["x"]', DEEP_5K];

const bad = {
  name: [
    ...texts('', '   ', '\t\n', 'x'.repeat(101), 'é'.repeat(101), 'n'.repeat(10_000)),
    ...['1', 'null', 'true', '1e400', ...NOT_SCALAR],
  ],
  text: (max: number) => [...texts('d'.repeat(max + 1), 'd'.repeat(10_000)), '1', 'null', 'false', ...NOT_SCALAR],
  price: [
    '-1',
    '-0.01',
    '-1e-9',
    '1e400',
    '-1e400',
    '1e300',
    '1000000001',
    '"10"',
    '"NaN"',
    'null',
    'true',
    '[1]',
    '{}',
  ],
  bool: ['"true"', '"false"', '"yes"', '1', '0', 'null', '[]', '{}'],
  id: [
    ...['"1"', '"abc"', '1.5', '0', '-1', '-0', '1e-400', '1e400', '-1e400'],
    ...['99999999999999999999', '9007199254740992', 'null', 'true', '[1]', '{}', DEEP_5K],
  ],
  multiplier: ['-1', '-0.5', '1e400', '-1e400', '1000001', '1e300', '"2"', 'null', 'true', '[]', '{}'],
  color: [
    ...texts('red', '#12', '#GGGGGG', '#1234567', '', 'rgb(0,0,0)', '#fff;}body{display:none', '#FFF '),
    ...['1', 'null', '[]'],
  ],
  align: [...texts('middle', 'Left', 'CENTER', '', 'justify'), '1', 'null', 'true'],
  badge: [...texts('bottom', 'Top', ''), '0', 'null'],
  cssLength: [
    ...texts('12 px', '-1px', 'calc(100% - 1px)', '12', '1e3px', '', 'expression(alert(1))', '12px;}'),
    ...['12', 'null'],
  ],
  font: [
    ...texts('', '   ', 'Arial;} body{display:none}', '</style><script>alert(1)</script>', 'a\\b', 'f'.repeat(201)),
    ...[j('Inter\u0000'), '1', 'null'],
  ],
  customCss: [j('c'.repeat(20_001)), '1', 'null', '[]'],
  url: [
    ...texts('javascript:alert(1)', 'ftp://example.com/x', 'not a url', '/relative/path', '//example.com', ''),
    ...texts(`https://example.com/${'a'.repeat(2_050)}`, 'data:text/html,<script>alert(1)</script>'),
    ...['1', 'true', '[]', '{}'],
  ],
  currency: [...texts('US', 'USDX', 'ZZZ', 'U$D', '', 'usd '), '840', 'null', '[]'],
  annualDiscount: ['1', '1.5', '-0.1', '100', '"0.2"', 'null', '1e400', 'true'],
  slug: [...texts('Bad Slug', '-a', 'a-', 'a--b', 'UPPER', 'a'.repeat(65), '', 'ü', '../etc', 'a/b'), '1', 'null'],
  featureType: [...texts('standart', 'Standart ', 'Usage based', 'Limit', ''), '1', 'null', '["Standart"]'],
  usageCount: ['-1', '1e13', '"5"', '1e400', 'null', 'true'],
  condition: [j('c'.repeat(51)), '1', 'null', '[]'],
  aggregation: [...texts('avg', 'COUNT', ''), '1', 'null'],
  freemiumDay: ['-1', '1.5', '731', '"7"', 'null', '1e400', 'true'],
};

const themeBad: Record<string, string[]> = {
  fontFamily: bad.font,
  primaryColor: bad.color,
  hoverColor: bad.color,
  buttonTextColor: bad.color,
  borderRadius: bad.cssLength,
  pricingBackgroundColor: bad.color,
  pricingBorderColor: bad.color,
  customCSS: bad.customCss,
  showProjectName: bad.bool,
  showPricingHeader: bad.bool,
  headerAlign: bad.align,
  descriptionAlign: bad.align,
  toggleAlign: bad.align,
  popularBadgePosition: bad.badge,
};

/** `theme` that is not an object, or an object with one bad field (and maybe a good one). */
const badTheme = [
  ...['[]', '["primaryColor","#000000"]', '"dark"', '1', 'null', 'true'],
  ...Object.entries(themeBad).flatMap(([key, values]) =>
    values.map((raw) =>
      objectText([
        ['showProjectName', 'false'],
        [key, raw],
      ]),
    ),
  ),
];

const projectBad: Record<string, string[]> = {
  name: bad.name,
  description: bad.text(2_000),
  pricingPageDescription: bad.text(5_000),
  currency: bad.currency,
  annualDiscount: bad.annualDiscount,
  annualDiscountEnabled: bad.bool,
  isActive: bad.bool,
  checkoutSuccessUrl: bad.url,
  checkoutCancelUrl: bad.url,
  checkoutTestSuccessUrl: bad.url,
  checkoutTestCancelUrl: bad.url,
  theme: badTheme,
};

const featureBad: Record<string, string[]> = {
  name: bad.name,
  description: bad.text(1_000),
  basePrice: bad.price,
  featureType: bad.featureType,
  isCountable: bad.bool,
  usageCount: bad.usageCount,
  condition: bad.condition,
  countPrice: bad.price,
  eventAggregationMethod: bad.aggregation,
};

const planBad: Record<string, string[]> = {
  name: bad.name,
  description: bad.text(1_000),
  basePrice: bad.price,
  isPopular: bad.bool,
  isVisible: bad.bool,
  isFree: bad.bool,
  freemiumDay: bad.freemiumDay,
  isPerUserPricing: bad.bool,
  perUserMultiplier: bad.multiplier,
};

/** A `features` list (plan create, batch add) that must be refused; `[]` too when `emptyIsBad`. */
function badFeatureRefs(freeFeatureId: number, emptyIsBad: boolean): string[] {
  return [
    ...['{}', '{"featureId":1}', '"1,2"', '1', 'null', 'true', '[{}]', '[{"multiplier":1}]', '[null]', '[[1]]'],
    ...['[{"featureId":"1"}]', '[{"featureId":1.5}]', '[{"featureId":0}]', '[{"featureId":-1}]', '[1,2]'],
    ...['[{"featureId":1e400}]', `[{"featureId":${freeFeatureId},"multiplier":-1}]`, DEEP_5K],
    `[{"featureId":${freeFeatureId},"multiplier":"2"}]`,
    j(Array.from({ length: 201 }, (_, i) => ({ featureId: i + 1 }))),
    ...(emptyIsBad ? ['[]'] : []),
  ];
}

/** Every field name of every body schema: noise never uses one, so noise never makes a body valid. */
const SCHEMA_FIELDS = new Set([
  ...Object.keys(projectBad),
  ...Object.keys(featureBad),
  ...Object.keys(planBad),
  ...Object.keys(themeBad),
  'slug',
  'features',
  'featureId',
  'multiplier',
  'paymentSecretKey',
]);

/** Keys that are hostile (prototype pollution, method shadowing) or read-only, with hostile values. */
const noiseField: fc.Arbitrary<Field> = fc.tuple(
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype') },
    {
      weight: 2,
      arbitrary: fc.constantFrom('toString', 'valueOf', 'hasOwnProperty', 'toJSON', 'then', 'isAdmin', 'polluted'),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        ...['id', 'shareId', 'ownerId', 'createdAt', 'updatedAt', '_count', 'version', 'deletingAt', 'pk', 'sk'],
        ...['projectId', 'planId', 'pricingPlans', 'planFeatures', 'themeSettings', 'countableData'],
      ),
    },
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 12 }).filter((key) => !SCHEMA_FIELDS.has(key)) },
  ),
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        ...['{"isAdmin":true}', '{"polluted":1}', '{"prototype":{"polluted":1}}', '{"__proto__":{"polluted":1}}'],
        ...['{"constructor":{"prototype":{"polluted":1}}}', 'null', '"hijack"', '1', '[]', DEEP_50K],
      ),
    },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map(j) },
  ),
);
const noiseArb = fc.array(noiseField, { maxLength: 4 });

/** One to three bad fields from a table of bad values per field. */
function badFields(table: Record<string, string[]>) {
  const pairs = Object.entries(table).flatMap(([key, values]) => values.map((raw): Field => [key, raw]));
  return fc
    .array(fc.constantFrom(...pairs), { minLength: 1, maxLength: 3 })
    .map((fields) => ({ fields, keys: fields.map(([key]) => key) }));
}

interface Poison {
  /** Fields after the noise and the route's required fields: they win over both. */
  fields: readonly Field[];
  /** The fields the error must name (first segment of a detail path). */
  keys: readonly string[];
  /** Leave the route's required fields out. */
  omitRequired?: boolean;
}

interface Target {
  slug: string;
  planId: number;
  assignedFeatureId: number;
  freeFeatureId: number;
}

interface BodyRoute {
  name: string;
  method: 'POST' | 'PUT';
  path: string;
  /** A body the service accepts: only ever sent where something else must make it fail. */
  valid: string;
  /** Valid values of the required fields, included by default. */
  required: readonly Field[];
  poison: fc.Arbitrary<Poison>;
  optionalBody?: boolean;
}

/** Bodies with one required field left out. */
function missingRequired(required: readonly Field[]): fc.Arbitrary<Poison> {
  return fc.constantFrom(...required).map(([missing]) => ({
    fields: required.filter(([key]) => key !== missing),
    keys: [missing],
    omitRequired: true,
  }));
}

function bodyRoutes(t: Target): BodyRoute[] {
  const p = `/api/v1/projects/${t.slug}`;
  const plan = `${p}/plans/${t.planId}`;
  const featureBadValues = badFields(featureBad);
  const addFeaturesPoison: fc.Arbitrary<Poison> = fc.oneof(
    fc.tuple(fc.constantFrom(...bad.id), fc.boolean()).map(([raw, withMultiplier]) => ({
      fields: [['featureId', raw] as Field, ...(withMultiplier ? [['multiplier', '2'] as Field] : [])],
      keys: ['featureId'],
    })),
    fc.constantFrom(...bad.multiplier).map((raw) => ({
      fields: [['featureId', String(t.freeFeatureId)] as Field, ['multiplier', raw] as Field],
      keys: ['multiplier'],
    })),
    fc.constantFrom<Field[]>([], [['multiplier', '1']]).map((fields) => ({ fields, keys: ['featureId'] })),
    fc.constantFrom(...badFeatureRefs(t.freeFeatureId, true)).map((raw) => ({
      fields: [['features', raw] as Field],
      keys: ['features'],
    })),
  );
  return [
    {
      name: 'create project',
      method: 'POST',
      path: '/api/v1/projects',
      valid: j({ name: 'Fuzz accepted project' }),
      required: [['name', j('Fuzz')]],
      poison: fc.oneof(badFields({ ...projectBad, slug: bad.slug }), missingRequired([['name', j('Fuzz')]])),
    },
    {
      name: 'update project',
      method: 'PUT',
      path: p,
      valid: j({ name: 'Changed by fuzz' }),
      required: [],
      poison: badFields(projectBad),
    },
    {
      name: 'create feature',
      method: 'POST',
      path: `${p}/features`,
      valid: j({ name: 'Fuzz feature', basePrice: 1 }),
      required: [
        ['name', j('Fuzz feature')],
        ['basePrice', '1'],
      ],
      poison: fc.oneof(
        featureBadValues,
        missingRequired([
          ['name', j('Fuzz feature')],
          ['basePrice', '1'],
        ]),
      ),
    },
    {
      name: 'update feature',
      method: 'PUT',
      path: `${p}/features/${t.assignedFeatureId}`,
      valid: j({ basePrice: 42 }),
      required: [],
      poison: featureBadValues,
    },
    {
      name: 'create plan',
      method: 'POST',
      path: `${p}/plans`,
      valid: j({ name: 'Fuzz plan' }),
      required: [['name', j('Fuzz plan')]],
      poison: fc.oneof(
        badFields({ ...planBad, features: badFeatureRefs(t.freeFeatureId, false) }),
        missingRequired([['name', j('Fuzz plan')]]),
      ),
    },
    {
      name: 'update plan',
      method: 'PUT',
      path: plan,
      valid: j({ basePrice: 77 }),
      required: [],
      poison: badFields(planBad),
    },
    {
      name: 'duplicate plan',
      method: 'POST',
      path: `${plan}/duplicate`,
      valid: j({ name: 'Fuzz copy' }),
      required: [],
      poison: badFields({ name: bad.name }),
      optionalBody: true,
    },
    {
      name: 'add plan features',
      method: 'POST',
      path: `${plan}/features`,
      valid: j({ featureId: t.freeFeatureId }),
      required: [],
      poison: addFeaturesPoison,
    },
    {
      name: 'update plan feature',
      method: 'PUT',
      path: `${plan}/features/${t.assignedFeatureId}`,
      valid: j({ multiplier: 5 }),
      required: [],
      poison: fc.oneof(
        badFields({ multiplier: bad.multiplier }),
        fc.constant<Poison>({ fields: [], keys: ['multiplier'] }),
      ),
    },
  ];
}

/** Write routes without a body: only ever sent where the key or the path must make them fail. */
function deleteRoutes(t: Target) {
  const p = `/api/v1/projects/${t.slug}`;
  return [
    { name: 'delete project', path: p },
    { name: 'delete feature', path: `${p}/features/${t.assignedFeatureId}` },
    { name: 'delete plan', path: `${p}/plans/${t.planId}` },
    { name: 'remove plan feature', path: `${p}/plans/${t.planId}/features?featureId=${t.assignedFeatureId}` },
  ];
}

function poisonedBody(route: BodyRoute) {
  return fc.tuple(noiseArb, route.poison).map(([noise, poison]) => {
    const fields = [...noise, ...(poison.omitRequired ? [] : route.required), ...poison.fields];
    return labelled({ text: objectText(fields), keys: poison.keys }, `poison ${poison.keys.join(',')}`);
  });
}

// ---------------------------------------------------------------------------------------
// Malformed JSON text.
// ---------------------------------------------------------------------------------------

interface RawCase {
  body: string | Uint8Array;
  status: 400 | 413;
  code: 'validation_error' | 'payload_too_large';
  /** Blank bodies: refused where a body is required, "no body" where it is optional. */
  blank?: boolean;
}

const malformed = (body: string | Uint8Array, label: string): RawCase =>
  labelled({ body, status: 400, code: 'validation_error' }, label);

/** Valid JSON object texts: every non-empty proper prefix of one is malformed. */
const VALID_OBJECT_TEXTS = [
  j({ name: 'Plan', basePrice: 10, features: [{ featureId: 1, multiplier: 2 }] }),
  j({ theme: { primaryColor: '#000000', headerAlign: 'left' }, currency: 'EUR' }),
  j({ featureId: 3, multiplier: 1.5 }),
  j({ name: 'Ünïcode ✓ 😀', description: 'quote " and \\ backslash' }),
];

const HANDCRAFTED_MALFORMED = [
  ...['{"name":"x",}', '[1,2,]', '{"name":"x",,"basePrice":1}', '{,}', '{"name" "x"}', '{"name":}'],
  ...['{"basePrice":NaN}', '{"basePrice":Infinity}', '{"basePrice":-Infinity}', '{"name":undefined}', 'NaN'],
  ...["{'name':'x'}", `{"name":'x'}`, '{name:"x"}', '{"name":"x" /* comment */}', '// comment\n{"name":"x"}'],
  ...['{"basePrice":0x10}', '{"basePrice":01}', '{"basePrice":+1}', '{"basePrice":.5}', '{"basePrice":1.}'],
  ...['{"name":"\\x41"}', '{"name":"\\u12"}', '{"name":"\\ud800', '{"name":"a\u0001b"}', '{"name":"tab\there"}'],
  ...['{"name":"x"}}', '{"name":"x"} {"name":"y"}', '{"name":"x"}garbage', '"unterminated', '{"a":tru}', 'nul'],
  ...[`{"name":"${'\ud800'}`, `{"name":"x"${'\udc00'}}`, '\u0000', '{"name":"x"\u0000}', '<xml/>', 'name=x&a=1'],
  ...[DEEP_5K.slice(0, 5_000), '{"a":'.repeat(5_000), `${'['.repeat(5_000)}${']'.repeat(4_999)}`],
];

/** Bytes that are not UTF-8, put where no JSON string can hold them. */
const INVALID_UTF8 = [
  Uint8Array.from([0x7b, 0xff, 0xfe, 0x7d]), // {\xFF\xFE}
  Buffer.concat([Buffer.from('{"name":"x",'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('}')]), // CESU surrogate
  Buffer.concat([Buffer.from('{"name":"x"'), Buffer.from([0xc0, 0x80]), Buffer.from('}')]), // overlong NUL
  Uint8Array.from([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x7b, 0x7d]), // two byte-order marks before {}
];

const garbageText = fc
  .string({ unit: 'binary', minLength: 1, maxLength: 60 })
  .map(asServerSees)
  .filter((text) => text.trim() !== '' && !parses(text));

/** Valid JSON with one character inserted somewhere: a typo of a real body. */
const typoText = fc
  .tuple(
    fc.json({ maxDepth: 3 }),
    fc.nat(),
    fc.constantFrom(',', '}', ']', '{', '[', ':', '"', "'", '\\', 'x', '\u0000', '\ud800', '\n}'),
  )
  .map(([text, at, char]) =>
    asServerSees(`${text.slice(0, at % (text.length + 1))}${char}${text.slice(at % (text.length + 1))}`),
  )
  .filter((text) => text.trim() !== '' && !parses(text));

const truncatedText = fc
  .constantFrom(...VALID_OBJECT_TEXTS)
  .chain((text) => fc.integer({ min: 1, max: text.length - 1 }).map((end) => text.slice(0, end)));

/** Over the 256 KiB limit, counted in bytes (the euro sign is 3 bytes of UTF-8). */
const OVERSIZE: Array<() => RawCase> = [
  () => labelled({ body: j('a'.repeat(300 * KIB)), status: 413, code: 'payload_too_large' }, '300 KiB JSON string'),
  () =>
    labelled(
      { body: j({ name: 'x', description: 'd'.repeat(300 * KIB) }), status: 413, code: 'payload_too_large' },
      '300 KiB object',
    ),
  () =>
    labelled({ body: j({ name: '€'.repeat(100 * KIB) }), status: 413, code: 'payload_too_large' }, '100 Ki euro signs'),
  () => labelled({ body: `{${'x'.repeat(300 * KIB)}`, status: 413, code: 'payload_too_large' }, '300 KiB of garbage'),
];

const malformedCase: fc.Arbitrary<RawCase> = fc.oneof(
  { weight: 3, arbitrary: truncatedText.map((text) => malformed(text, `truncated ${j(text.slice(-20))}`)) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(...HANDCRAFTED_MALFORMED).map((text) => malformed(text, `malformed ${preview(text)}`)),
  },
  { weight: 2, arbitrary: garbageText.map((text) => malformed(text, `garbage ${j(text)}`)) },
  { weight: 2, arbitrary: typoText.map((text) => malformed(text, `typo ${preview(text)}`)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(...INVALID_UTF8).map((bytes) => malformed(bytes, `invalid UTF-8 ${preview(bytes)}`)),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('', ' ', '\n\t \r\n')
      .map((text) => labelled({ ...malformed(text, ''), blank: true }, `blank ${j(text)}`)),
  },
  { weight: 1, arbitrary: fc.constantFrom(...OVERSIZE).map((make) => make()) },
);

/** Valid JSON whose top level is not an object. */
const wrongTopLevel: fc.Arbitrary<string> = fc.oneof(
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }).map(j),
  fc.string({ unit: 'binary', maxLength: 30 }).map(j),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(j),
  fc.integer().map(String),
  fc.constantFrom(
    ...['null', 'true', 'false', '0', '-0', '1e400', '-1e400', '1e-400', '""', '"\\ud800"', '[]', '[{}]'],
    ...['[{"name":"x","basePrice":1,"featureId":1,"multiplier":1}]', j(j({ name: 'double-encoded' })), DEEP_5K],
    DEEP_50K,
  ),
);

// ---------------------------------------------------------------------------------------

describe('fuzz: malformed and hostile requests', () => {
  const server = useLocalServer();
  const seenRequestIds = new Set<string>();
  let requestsSent = 0;
  let owner: Awaited<ReturnType<typeof newOwner>>;
  let write: ApiClient;
  let target: Target;
  let routes: BodyRoute[];
  let projectBefore: unknown;
  let listBefore: unknown;
  /** A second owner whose data may change: hostile input the service is free to accept. */
  let scratch: Awaited<ReturnType<typeof newOwner>> & {
    client: ApiClient;
    slug: string;
    planId: number;
    featureId: number;
  };

  async function send(wire: Wire): Promise<Answer> {
    const headers: Record<string, string> = {};
    const body = typeof wire.body === 'string' ? utf8(wire.body) : wire.body;
    const contentType = wire.contentType === undefined ? (body ? 'application/json' : null) : wire.contentType;
    if (contentType) headers['content-type'] = contentType;
    const authorization = wire.authorization === undefined ? `Bearer ${owner.writeKey}` : wire.authorization;
    if (authorization) headers.authorization = authorization;
    requestsSent++;
    return sendRaw(`${server.url}${wire.path}`, { method: wire.method, headers, body }, HANG_MS, () =>
      describeWire(wire),
    );
  }

  /** What every answer must be: no 5xx, an X-Request-Id, and the one error shape on 4xx. */
  function checkAnswer(wire: Wire, answer: Answer): ErrorBody | undefined {
    const where = `${describeWire(wire)}\n→ ${answer.status} ${answer.text.slice(0, 500)}`;
    const requestId = answer.headers.get('x-request-id');
    expect(requestId, `x-request-id missing: ${where}`).toMatch(/\S/);
    expect(seenRequestIds.has(requestId as string), `x-request-id reused: ${where}`).toBe(false);
    seenRequestIds.add(requestId as string);
    expect(answer.status, where).toBeLessThan(500);
    if (answer.status < 400) return undefined;
    expect(answer.headers.get('content-type'), where).toMatch(/^application\/json/i);
    const parsed = ErrorBody.safeParse(answer.json);
    expect(parsed.success, `error body shape: ${parsed.error?.message}\n${where}`).toBe(true);
    const error = parsed.data as ErrorBody;
    if (error.error.details) expect(error.error.code, `details only for validation: ${where}`).toBe('validation_error');
    // Errors are for a person: they do not echo a hostile body back.
    expect(error.error.message.length, `message length: ${where}`).toBeLessThanOrEqual(1_000);
    return error;
  }

  async function expectError(wire: Wire, status: number, code: string): Promise<ErrorBody> {
    const answer = await send(wire);
    const error = checkAnswer(wire, answer);
    const where = `${describeWire(wire)}\n→ ${answer.status} ${answer.text.slice(0, 500)}`;
    expect(answer.status, where).toBe(status);
    expect(error?.error.code, where).toBe(code);
    return error as ErrorBody;
  }

  beforeAll(async () => {
    owner = await newOwner('fuzz');
    write = server.client(owner.writeKey);
    const project = await makeProject(write, {
      slug: 'fuzz-target',
      description: 'The project the fuzz aims at',
      theme: { primaryColor: '#123456', headerAlign: 'left' },
      checkoutSuccessUrl: 'https://example.com/thanks',
    });
    const slug = project.slug as string;
    const assigned = await makeFeature(write, slug, { isCountable: true, usageCount: 10, featureType: 'Limits' });
    const free = await makeFeature(write, slug, { description: 'not in the plan' });
    const plan = await makePlan(write, slug, { features: [{ featureId: assigned.id, multiplier: 2 }] });
    target = { slug, planId: plan.id, assignedFeatureId: assigned.id, freeFeatureId: free.id };
    routes = bodyRoutes(target);
    projectBefore = (await write.get(`/api/v1/projects/${slug}`)).body;
    listBefore = (await write.get('/api/v1/projects')).body;

    const scratchOwner = await newOwner('fuzz-scratch');
    const scratchClient = server.client(scratchOwner.writeKey);
    const scratchProject = await makeProject(scratchClient, { slug: 'fuzz-scratch' });
    const scratchFeature = await makeFeature(scratchClient, scratchProject.slug);
    const scratchPlan = await makePlan(scratchClient, scratchProject.slug, {
      features: [{ featureId: scratchFeature.id, multiplier: 3 }],
    });
    scratch = {
      ...scratchOwner,
      client: scratchClient,
      slug: scratchProject.slug,
      planId: scratchPlan.id,
      featureId: scratchFeature.id,
    };
  });

  const routeArb = () => fc.constantFrom(...routes).map((route) => labelled({ ...route }, `${route.name}`));

  it('malformed JSON text: 400 validation_error, and 413 over 256 KiB', { timeout: 60_000 }, async () => {
    await runProperty(
      'malformed JSON',
      1,
      60,
      fc.asyncProperty(routeArb(), malformedCase, async (route, raw) => {
        fc.pre(!(raw.blank && route.optionalBody));
        await expectError({ method: route.method, path: route.path, body: raw.body }, raw.status, raw.code);
      }),
    );
  });

  it('valid JSON that is not an object: 400 validation_error', { timeout: 60_000 }, async () => {
    await runProperty(
      'top level not an object',
      2,
      50,
      fc.asyncProperty(routeArb(), wrongTopLevel, async (route, text) => {
        // `null` to duplicate is checked on its own below: here it would add a plan to the target.
        fc.pre(!(route.optionalBody && text === 'null'));
        await expectError({ method: route.method, path: route.path, body: text }, 400, 'validation_error');
      }),
    );
  });

  it('objects with wrong types, out-of-range values and hostile keys: 400 naming the field', {
    timeout: 60_000,
  }, async () => {
    const cases = fc
      .constantFrom(...routes)
      .chain((route) =>
        poisonedBody(route).map((body) =>
          labelled({ route, body }, `${route.name}: ${body.keys} ${preview(body.text)}`),
        ),
      );
    await runProperty(
      'bad fields',
      3,
      90,
      fc.asyncProperty(cases, async ({ route, body }) => {
        const { status, code } = refusal(body.text);
        const error = await expectError({ method: route.method, path: route.path, body: body.text }, status, code);
        if (status === 413) return;
        const named = (error.error.details ?? []).map((detail) => detail.path.split(/[.[]/)[0]);
        expect(
          named.some((key) => key !== undefined && body.keys.includes(key)),
          `details should name one of ${body.keys}: ${JSON.stringify(error)}`,
        ).toBe(true);
      }),
    );
  });

  it('a body the service would accept, under a wrong Content-Type: 400 validation_error', {
    timeout: 60_000,
  }, async () => {
    const wrongTypes = fc.constantFrom(
      ...['text/plain', 'text/plain; charset=utf-8', 'text/html', 'multipart/form-data; boundary=fuzz'],
      ...['application/x-www-form-urlencoded', 'application/xml', 'application/octet-stream', 'application/jsonx'],
      ...['application/javascript', 'json', '*/*', 'application/*', 'application'],
      null,
    );
    const cases = fc.oneof(
      fc.tuple(routeArb(), wrongTypes).map(([route, contentType]) => {
        const body =
          contentType?.startsWith('multipart/') === true
            ? `--fuzz\r\nContent-Disposition: form-data; name="body"\r\nContent-Type: application/json\r\n\r\n${route.valid}\r\n--fuzz--\r\n`
            : route.valid;
        return labelled({ route, contentType, body: body as string | Uint8Array }, `${route.name} as ${contentType}`);
      }),
      // UTF-16 bytes of a body that is invalid whichever way they are decoded.
      routeArb().chain((route) =>
        poisonedBody(route).map((poisoned) =>
          labelled(
            {
              route,
              contentType: 'application/json; charset=utf-16' as string | null,
              body: Buffer.from(`\ufeff${poisoned.text}`, 'utf16le') as string | Uint8Array,
            },
            `${route.name} as UTF-16 ${preview(poisoned.text)}`,
          ),
        ),
      ),
    );
    await runProperty(
      'wrong content type',
      4,
      50,
      fc.asyncProperty(cases, async ({ route, contentType, body }) => {
        const { status, code } = refusal(body);
        await expectError({ method: route.method, path: route.path, body, contentType }, status, code);
      }),
    );
  });

  it('DELETE plan feature with a bad featureId query: 400 validation_error', { timeout: 60_000 }, async () => {
    const queries = fc.oneof(
      {
        weight: 3,
        arbitrary: fc.constantFrom(
          ...['', '?', '?featureId', '?featureId=', '?featureId=abc', '?featureId=1&featureId=2', '?featureId=-1'],
          ...['?featureId=1e3', '?featureId=99999999999999999999', '?featureId=0', '?featureId=1.5', '?featureId=%20'],
          ...['?featureId=%00', '?featureId=null', '?featureId=undefined', '?featureId=[1]', '?featureId[]=1'],
          ...['?featureid=1', '?FEATUREID=1', '?featureId=0x10', '?featureId=%F0%9F%98%80', '?featureId=%FF'],
          ...['?featureId=-0', '?featureId=Infinity', '?featureId=NaN', '?feature_id=1', '?featureId=%'],
        ),
      },
      {
        weight: 1,
        // Random text with at least one character no number has.
        arbitrary: fc
          .string({ unit: 'binary', minLength: 1, maxLength: 20 })
          .filter((value) => /[^0-9eE+\-.\s]/.test(value))
          .map((value) => `?featureId=${encodeURIComponent(value)}`),
      },
    );
    const base = `/api/v1/projects/${target.slug}/plans/${target.planId}/features`;
    await runProperty(
      'bad query',
      5,
      50,
      fc.asyncProperty(queries, async (query) => {
        await expectError({ method: 'DELETE', path: `${base}${query}` }, 400, 'validation_error');
      }),
    );
  });

  it('a read key on any write route: 403 forbidden, whatever the body', { timeout: 60_000 }, async () => {
    const bodies = (route: BodyRoute) =>
      fc.oneof(
        fc.constant({ body: route.valid, contentType: undefined as string | null | undefined }),
        malformedCase.map((raw) => ({ body: raw.body, contentType: undefined })),
        wrongTopLevel.map((text) => ({ body: text as string | Uint8Array, contentType: undefined })),
        poisonedBody(route).map((poisoned) => ({ body: poisoned.text as string | Uint8Array, contentType: undefined })),
        fc.constantFrom('text/plain', null).map((contentType) => ({ body: route.valid, contentType })),
      );
    const cases = fc.oneof(
      { weight: 4, arbitrary: routeArb().chain((route) => bodies(route).map((body) => ({ ...body, route }))) },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom(...deleteRoutes(target))
          .map((route) => ({ route: { ...route, method: 'DELETE' }, body: undefined, contentType: undefined })),
      },
    );
    await runProperty(
      'read key',
      6,
      50,
      fc.asyncProperty(cases, async ({ route, body, contentType }) => {
        await expectError(
          { method: route.method, path: route.path, body, contentType, authorization: `Bearer ${owner.readKey}` },
          403,
          'forbidden',
        );
      }),
    );
  });

  it('a missing, malformed or unknown key on any write route: 401 unauthorized', { timeout: 60_000 }, async () => {
    const [, keyId = '', secret = ''] = owner.writeKey.split('_');
    const headers = fc.oneof(
      fc.constantFrom(
        ...[null, 'Bearer', 'Bearer ppk_', `Basic ${Buffer.from(`x:${owner.writeKey}`).toString('base64')}`],
        ...[`Token ${owner.writeKey}`, `Bearer ${owner.writeKey}x`, `Bearer ${owner.writeKey.slice(0, -1)}`],
        ...[`Bearer  ${owner.writeKey}`, owner.writeKey, `Bearer ppk_${keyId}_${'A'.repeat(32)}`],
        ...[`Bearer ppk_${'a'.repeat(12)}_${secret}`, `Bearer ${owner.writeKey},Bearer ${owner.writeKey}`],
        ...[
          `Bearer ${owner.writeKey.toUpperCase()}`,
          `Bearer ppk_../../${keyId}_${secret}`,
          `Bearer ${'k'.repeat(8_000)}`,
        ],
        ...[`Bearer ppk_${keyId}_${secret}_extra`, `Bearer\t${owner.writeKey}`, `Bearer ${owner.writeKey} extra`],
      ),
      fc
        .stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,60}[\x21-\x7e]$/)
        .chain((value) => fc.constantFrom(value, `Bearer ${value}`)),
    );
    const cases = fc.tuple(
      fc.oneof(
        routeArb().map((route) => ({ method: route.method as string, path: route.path, body: route.valid })),
        fc
          .constantFrom(...deleteRoutes(target))
          .map((route) => ({ method: 'DELETE', path: route.path, body: undefined })),
      ),
      headers,
    );
    await runProperty(
      'bad key',
      7,
      40,
      fc.asyncProperty(cases, async ([route, authorization]) => {
        await expectError({ ...route, authorization }, 401, 'unauthorized');
      }),
    );
  });

  it('path ids and slugs that name nothing: 404 not_found', { timeout: 60_000 }, async () => {
    const ids = [target.planId, target.assignedFeatureId, target.freeFeatureId];
    const segments = fc
      .oneof(
        fc.constantFrom(
          ...['0', '-1', '1.5', '1e3', 'abc', '%', '%%', 'null', 'undefined', 'NaN', 'Infinity', '0x1', ' ', '$'],
          ...['99999999999999999999', '\u0000', '<script>', "' OR 1=1 --", '../admin', '..%2f', 'ppk_x', '😀'],
        ),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }),
      )
      .map(asServerSees)
      // Nothing a lenient parser could read as an id that exists, and no dot segments.
      .filter(
        (value) =>
          value !== '.' &&
          value !== '..' &&
          !ids.includes(Number(value.trim())) &&
          !ids.includes(Number.parseInt(value, 10)) &&
          value.toLowerCase() !== target.slug,
      );
    const p = `/api/v1/projects/${target.slug}`;
    const templates: Array<{ method: string; path: (x: string) => string; body?: string }> = [
      { method: 'PUT', path: (x) => `${p}/features/${x}`, body: j({ basePrice: 42 }) },
      { method: 'DELETE', path: (x) => `${p}/features/${x}` },
      { method: 'PUT', path: (x) => `${p}/plans/${x}`, body: j({ basePrice: 77 }) },
      { method: 'DELETE', path: (x) => `${p}/plans/${x}` },
      { method: 'POST', path: (x) => `${p}/plans/${x}/duplicate`, body: j({ name: 'Fuzz copy' }) },
      { method: 'POST', path: (x) => `${p}/plans/${x}/features`, body: j({ featureId: target.freeFeatureId }) },
      { method: 'DELETE', path: (x) => `${p}/plans/${x}/features?featureId=${target.assignedFeatureId}` },
      {
        method: 'PUT',
        path: (x) => `${p}/plans/${x}/features/${target.assignedFeatureId}`,
        body: j({ multiplier: 5 }),
      },
      { method: 'PUT', path: (x) => `${p}/plans/${target.planId}/features/${x}`, body: j({ multiplier: 5 }) },
      { method: 'PUT', path: (x) => `/api/v1/projects/${x}`, body: j({ name: 'Changed by fuzz' }) },
      { method: 'DELETE', path: (x) => `/api/v1/projects/${x}` },
      { method: 'POST', path: (x) => `/api/v1/projects/${x}/features`, body: j({ name: 'F', basePrice: 1 }) },
      { method: 'POST', path: (x) => `/api/v1/projects/${x}/plans`, body: j({ name: 'P' }) },
    ];
    const cases = fc
      .tuple(fc.constantFrom(...templates), segments)
      .map(([template, segment]) =>
        labelled(
          { method: template.method, path: template.path(encodeURIComponent(segment)), body: template.body },
          `${template.method} ${template.path(encodeURIComponent(segment))}`,
        ),
      );
    await runProperty(
      'path ids',
      8,
      40,
      fc.asyncProperty(cases, async (wire) => {
        await expectError(wire, 404, 'not_found');
      }),
    );
  });

  // -------------------------------------------------------------------------------------
  // Hostile text the service may accept: sent to the scratch owner, and every answer is
  // checked against what a GET reads back right after it.
  // -------------------------------------------------------------------------------------

  const hostileString = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.constantFrom(
      ...['\u0000', '\ud800', '\udfff', 'a\ud83d', 'x\udc00y', '\u202eevil', '\ufeff', '\r\n\r\nHTTP/1.1 200 OK'],
      ...['<script>alert(1)</script>', "'; DROP TABLE pricing; --", '\u0024{jndi:ldap://x/a}', '{{7*7}}', '__proto__'],
      ...['null', 'undefined', 'ﷺ'.repeat(30), 'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇', '😀'.repeat(50), ' padded name '],
    ),
  );
  const anyJson = fc.jsonValue({ maxDepth: 2 });
  const maybe = <T>(valid: fc.Arbitrary<T>) =>
    fc.oneof({ weight: 4, arbitrary: valid as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: anyJson });

  /** Writes to the scratch owner; checks the answer like any other. */
  async function scratchSend(method: string, path: string, body?: string) {
    const wire: Wire = { method, path, body, authorization: `Bearer ${scratch.writeKey}` };
    const answer = await send(wire);
    checkAnswer(wire, answer);
    return { wire, answer, where: `${describeWire(wire)}\n→ ${answer.status} ${answer.text.slice(0, 500)}` };
  }

  const scratchGet = async (path: string) => {
    const response = await scratch.client.get(path);
    expect(response.status, response.text).toBe(200);
    return response.body as Record<string, unknown>;
  };

  it('hostile but possibly valid project updates: the answer is what reads back', { timeout: 60_000 }, async () => {
    const path = () => `/api/v1/projects/${scratch.slug}`;
    const theme = fc.record(
      {
        fontFamily: maybe(hostileString),
        customCSS: maybe(hostileString),
        primaryColor: maybe(fc.constantFrom('#fff', '#A1B2C3', '#12345678')),
        borderRadius: maybe(fc.constantFrom('0', '12px', '0.5rem', '50%')),
        headerAlign: maybe(fc.constantFrom('left', 'center', 'right')),
        popularBadgePosition: maybe(fc.constantFrom('top', 'inline')),
        showProjectName: maybe(fc.boolean()),
      },
      { requiredKeys: [] },
    );
    const update = fc
      .tuple(
        noiseArb,
        fc.record(
          {
            name: maybe(hostileString),
            description: maybe(hostileString),
            pricingPageDescription: maybe(hostileString),
            currency: maybe(fc.constantFrom('USD', 'eur', 'Jpy', 'GBP', 'CHF', 'BHD')),
            annualDiscount: maybe(fc.double({ min: 0, max: 0.99, noNaN: true })),
            annualDiscountEnabled: maybe(fc.boolean()),
            isActive: maybe(fc.boolean()),
            checkoutSuccessUrl: maybe(
              fc.oneof(fc.constantFrom(null, 'https://example.com/ok', 'http://127.0.0.1:3000/x?y=1#z'), fc.webUrl()),
            ),
            checkoutTestCancelUrl: maybe(fc.constantFrom(null, 'https://例え.jp/パス', 'HTTPS://EXAMPLE.COM/UP')),
            theme: maybe(theme),
          },
          { requiredKeys: [] },
        ),
      )
      .map(([noise, fields]) =>
        objectText([...noise, ...Object.entries(fields).map(([key, value]): Field => [key, j(value)])]),
      );
    await runProperty(
      'scratch project updates',
      9,
      50,
      fc.asyncProperty(update, async (body) => {
        const before = await scratchGet(path());
        const { answer, where } = await scratchSend('PUT', path(), body);
        const after = await scratchGet(path());
        if (answer.status === 200) expect(after, `read back after 200: ${where}`).toStrictEqual(answer.json);
        else expect(after, `read back after ${answer.status}: ${where}`).toStrictEqual(before);
      }),
    );
  });

  it('hostile but possibly valid new features and projects: the answer is what reads back', {
    timeout: 60_000,
  }, async () => {
    const features = () => `/api/v1/projects/${scratch.slug}/features`;
    const newFeature = fc.record(
      {
        name: hostileString,
        basePrice: maybe(fc.double({ min: 0, max: 1e9, noNaN: true })),
        description: maybe(hostileString),
        condition: maybe(hostileString),
        featureType: maybe(fc.constantFrom('Standart', 'Standard', 'Limits', 'Usage Based')),
        isCountable: maybe(fc.boolean()),
        usageCount: maybe(fc.integer({ min: 0, max: 1_000_000 })),
      },
      { requiredKeys: ['name'] },
    );
    await runProperty(
      'scratch new features',
      10,
      30,
      fc.asyncProperty(newFeature, async (fields) => {
        const before = await scratchGet(features());
        const { answer, where } = await scratchSend('POST', features(), j(fields));
        const after = await scratchGet(features());
        if (answer.status === 201) {
          expect(after.features, `read back after 201: ${where}`).toStrictEqual([
            ...(before.features as unknown[]),
            answer.json,
          ]);
        } else {
          expect(after, `read back after ${answer.status}: ${where}`).toStrictEqual(before);
        }
      }),
    );
    const newProject = fc.record(
      {
        name: hostileString,
        slug: fc.stringMatching(/^[a-z0-9]{1,6}(?:-[a-z0-9]{1,6}){0,2}$/),
        description: maybe(hostileString),
      },
      { requiredKeys: ['name'] },
    );
    await runProperty(
      'scratch new projects',
      11,
      25,
      fc.asyncProperty(newProject, async (fields) => {
        const before = await scratchGet('/api/v1/projects');
        const { answer, where } = await scratchSend('POST', '/api/v1/projects', j(fields));
        const after = await scratchGet('/api/v1/projects');
        if (answer.status === 201) {
          const created = answer.json as { slug: string };
          expect(await scratchGet(`/api/v1/projects/${created.slug}`), where).toStrictEqual(created);
          expect((after.projects as unknown[]).length, where).toBe((before.projects as unknown[]).length + 1);
        } else {
          expect(after, `read back after ${answer.status}: ${where}`).toStrictEqual(before);
        }
      }),
    );
  });

  it('numbers too small for DynamoDB (below 1e-130): no 5xx, nothing half-written', async () => {
    // JSON allows them and every bound here is `>= 0`, but DynamoDB stores no magnitude
    // below 1e-130: the service must refuse them (400) or store them rounded, never 500.
    const p = `/api/v1/projects/${scratch.slug}`;
    const plan = `${p}/plans/${scratch.planId}`;
    const unassigned = (await makeFeature(scratch.client, scratch.slug)).id as number;
    for (const tiny of ['1e-131', '1e-200', '5e-324']) {
      const cases: Array<[string, string, string]> = [
        ['PUT', p, `{"annualDiscount":${tiny}}`],
        ['POST', `${p}/features`, `{"name":"Tiny","basePrice":${tiny}}`],
        ['POST', `${p}/features`, `{"name":"Tiny","basePrice":1,"isCountable":true,"usageCount":${tiny}}`],
        ['POST', `${p}/features`, `{"name":"Tiny","basePrice":1,"isCountable":true,"countPrice":${tiny}}`],
        ['PUT', `${p}/features/${scratch.featureId}`, `{"basePrice":${tiny}}`],
        ['POST', `${p}/plans`, `{"name":"Tiny","basePrice":${tiny}}`],
        ['POST', `${p}/plans`, `{"name":"Tiny","perUserMultiplier":${tiny}}`],
        ['POST', `${p}/plans`, `{"name":"Tiny","features":[{"featureId":${scratch.featureId},"multiplier":${tiny}}]}`],
        ['PUT', plan, `{"basePrice":${tiny}}`],
        ['PUT', `${plan}/features/${scratch.featureId}`, `{"multiplier":${tiny}}`],
        ['POST', `${plan}/features`, `{"featureId":${unassigned},"multiplier":${tiny}}`],
      ];
      for (const [method, path, body] of cases) {
        const before = await scratchGet(p);
        const wire: Wire = { method, path, body, authorization: `Bearer ${scratch.writeKey}` };
        const answer = await send(wire);
        const where = `${describeWire(wire)}\n→ ${answer.status} ${answer.text.slice(0, 300)}`;
        expect.soft(answer.status, where).toBeLessThan(500);
        expect.soft(answer.headers.get('x-request-id'), where).toMatch(/\S/);
        if (answer.status >= 400) expect.soft(await scratchGet(p), `half-written: ${where}`).toStrictEqual(before);
      }
    }
  });

  it('duplicate plan: a body that is present but is not a JSON object is refused', async () => {
    // The body of duplicate is optional, but a body that is sent must be `{ name? }`:
    // JSON `null` is not an object, and U+00A0 / U+FEFF are not JSON whitespace.
    const plans = `/api/v1/projects/${scratch.slug}/plans`;
    const before = await scratchGet(plans);
    for (const body of ['null', '\u00a0', '\ufeff', '\u2028']) {
      const { answer, where } = await scratchSend('POST', `${plans}/${scratch.planId}/duplicate`, body);
      expect.soft(answer.status, where).toBe(400);
      expect.soft((answer.json as ErrorBody | undefined)?.error?.code, where).toBe('validation_error');
    }
    expect(await scratchGet(plans)).toStrictEqual(before);
  });

  it('specific expectations', async () => {
    const projects = '/api/v1/projects';
    await expectError(
      { method: 'POST', path: projects, body: j({ name: 'x'.repeat(300 * KIB) }) },
      413,
      'payload_too_large',
    );
    await expectError({ method: 'POST', path: projects, body: '{"name":"x",' }, 400, 'validation_error');
    await expectError(
      { method: 'POST', path: projects, body: j({ name: 'Plain text' }), contentType: 'text/plain' },
      400,
      'validation_error',
    );
    await expectError(
      { method: 'POST', path: projects, body: j({ name: 'No content type' }), contentType: null },
      400,
      'validation_error',
    );
    const polluting = await expectError(
      { method: 'POST', path: projects, body: '{"__proto__":{"polluted":1}}' },
      400,
      'validation_error',
    );
    expect(polluting.error.details?.map((detail) => detail.path)).toContain('name');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expectNoPrototypePollution();
  });

  it('the target project reads back exactly as before the fuzz', async () => {
    const project = await write.get(`/api/v1/projects/${target.slug}`);
    expect(project.status).toBe(200);
    expect(project.body).toStrictEqual(projectBefore);
    const list = await write.get('/api/v1/projects');
    expect(list.status).toBe(200);
    expect(list.body).toStrictEqual(listBefore);
    expectNoPrototypePollution();
    console.info(
      `[fuzz] ${requestsSent} requests sent; ${seenRequestIds.size} answers checked, each its own x-request-id`,
    );
  });
});
