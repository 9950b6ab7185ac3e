import { defineConfig } from 'vitest/config';

/**
 * Tests by kind, one Vitest project each (`npx vitest run --project unit`; `npm test` runs
 * them all):
 * - unit: pure code and files, no Java, no network, a few seconds;
 * - infra: the CDK app synthesized offline (bundles included), no Java;
 * - integration and browser: the handlers over real HTTP on one DynamoDB Local per project,
 *   started by tests/global-setup.ts, with tests/setup.ts pointing the process at it.
 * The root holds only what every project shares; it has no global setup of its own, since
 * the root's would run whatever projects were chosen.
 */
const needsDynamo = { globalSetup: ['tests/global-setup.ts'], setupFiles: ['tests/setup.ts'] };

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration files share one DynamoDB Local, each on a table of its own (tests/setup.ts).
    pool: 'forks',
    reporters: ['default', './tests/summary-reporter.ts'],
    projects: [
      { extends: true, test: { name: 'unit', include: ['tests/unit/**/*.test.ts'] } },
      { extends: true, test: { name: 'infra', include: ['tests/infra/**/*.test.ts'] } },
      { extends: true, test: { name: 'integration', include: ['tests/integration/**/*.test.ts'], ...needsDynamo } },
      { extends: true, test: { name: 'browser', include: ['tests/browser/**/*.test.ts'], ...needsDynamo } },
    ],
  },
});
