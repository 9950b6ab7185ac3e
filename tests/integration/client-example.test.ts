import { describe, expect, test } from 'vitest';
import { newOwner, useLocalServer } from '../fixtures/api.ts';
import { runScript } from '../fixtures/cli.ts';

const server = useLocalServer();

describe('npm run example:client', () => {
  test('sets up a project, features and plans through the typed client against the local server', async () => {
    const owner = await newOwner('client');
    const run = await runScript('client/example.ts', ['--name', 'Client Co'], {
      PRICING_API_URL: server.url,
      PRICING_API_KEY: owner.writeKey,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^project client-co \(id \d+\)$/m);

    const project = await server.client(owner.readKey).get('/api/v1/projects/client-co');
    expect(project.status).toBe(200);
    expect(project.body.features.map((f: { name: string }) => f.name)).toEqual(['SSO', 'Events']);
    expect(
      project.body.pricingPlans.map((p: { name: string; planFeatures: unknown[] }) => [p.name, p.planFeatures.length]),
    ).toEqual([
      ['Free', 1],
      ['Pro', 2],
    ]);
    expect(run.stdout).toContain(`share ${project.body.shareId}: Free 0 EUR, Pro 29 EUR`);
  });

  test('without a key it says how to get one and exits 2; an API error exits 1 with its message', async () => {
    const missing = await runScript('client/example.ts', [], {
      PRICING_API_URL: server.url,
      PRICING_API_KEY: undefined,
    });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('keys create');

    const owner = await newOwner('client');
    const readOnly = await runScript('client/example.ts', ['--url', server.url, '--key', owner.readKey]);
    expect(readOnly.status).toBe(1);
    expect(readOnly.stderr).toContain('create project failed: 403');
  });
});
