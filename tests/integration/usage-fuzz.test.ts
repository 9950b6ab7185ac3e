import fc from 'fast-check';
import { beforeAll, expect, test, vi } from 'vitest';
import { type ApiClient, newOwner, useLocalServer } from '../fixtures/api.ts';
import { makeFeature, makeProject } from '../fixtures/factories.ts';

/** POST …/events with bodies of any shape never answers a 5xx (and a 200 always adds up). */
vi.hoisted(() => {
  process.env.PROJECT_CACHE_TTL_SECONDS = '0';
});

const server = useLocalServer();
let api: ApiClient;
let slug: string;
let featureIds: number[];

beforeAll(async () => {
  api = server.client((await newOwner('usage-fuzz')).writeKey);
  slug = (await makeProject(api)).slug;
  featureIds = [];
  for (const method of ['count', 'sum', 'max', 'unique_count', 'latest']) {
    featureIds.push(
      (await makeFeature(api, slug, { isCountable: true, usageCount: 5, eventAggregationMethod: method })).id,
    );
  }
  featureIds.push((await makeFeature(api, slug)).id);
});

const oddString = fc.oneof(
  fc.string({ maxLength: 140 }),
  fc.string({ unit: 'grapheme', maxLength: 210 }),
  fc.string({ unit: 'binary', maxLength: 130 }),
  fc.constantFrom('', ' ', '\ud800', 'a\u0000b', '#', '$pricing#', 'x'.repeat(128), 'é'.repeat(200), '𝒳'.repeat(200)),
);
const oddNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -0, 1e-200, 1e-9, 1e15, 1e16, -1e15, 1e308, Number.MAX_SAFE_INTEGER, 0.1),
);
const oddTimestamp = fc.oneof(
  fc
    .date({ min: new Date(Date.now() - 40 * 86_400_000), max: new Date(Date.now() + 600_000), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc.constantFrom('2026-02-30T00:00:00Z', '1970-01-01T00:00:00Z', '9999-12-31T23:59:59Z', 'now', '', '2026-11-01'),
);
const anything = fc.oneof(fc.jsonValue({ maxDepth: 2 }), oddString, oddNumber);

const event = fc.record(
  {
    eventId: fc.oneof(oddString, anything),
    customerId: fc.oneof(fc.stringMatching(/^[A-Za-z0-9._:@-]{1,128}$/), oddString, anything),
    featureId: fc.oneof(
      fc.constantFrom(...[0, 1, 999_999]).map((n) => n),
      fc.constant(-1),
      oddNumber,
      anything,
    ),
    value: fc.oneof(oddNumber, anything),
    property: fc.oneof(oddString, anything),
    timestamp: fc.oneof(oddTimestamp, anything),
    extra: anything,
  },
  { requiredKeys: [] },
);

test('any batch: 200 or 400, never a 5xx', { timeout: 180_000 }, async () => {
  const validFeature = fc.constantFrom(...featureIds);
  const mostlyValid = fc.record({
    eventId: fc.oneof(oddString, fc.uuid()),
    customerId: fc.stringMatching(/^[A-Za-z0-9._:@-]{1,128}$/),
    featureId: validFeature,
    value: oddNumber,
    property: oddString,
    timestamp: oddTimestamp,
  });
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.record({ events: fc.array(fc.oneof(event, mostlyValid), { maxLength: 30 }) }),
        fc.record({ events: fc.array(mostlyValid, { minLength: 1, maxLength: 30 }) }),
        anything,
      ),
      async (body) => {
        const response = await api.post(`/api/v1/projects/${slug}/events`, body);
        expect([200, 400], response.text).toContain(response.status);
        if (response.status === 200) {
          const events = (body as { events: unknown[] }).events;
          expect(response.body.accepted + response.body.duplicates).toBe(events.length);
        }
      },
    ),
    { numRuns: 150 },
  );
});
