import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/global-setup.ts'],
    setupFiles: ['tests/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration files share one DynamoDB Local; each works under owners of its own.
    pool: 'forks',
    reporters: ['default', './tests/summary-reporter.ts'],
  },
});
