import { connectDatabase } from '#db/service.ts';
import { localConfig } from '#dev/local-config.ts';
import { runningLocalDatabase } from '#dev/local-credential.ts';
import { SeedError, seedDemo } from '#dev/seed-demo.ts';
import { createApiKey } from '#domain/keys/keys.ts';
import { ConfigError } from '#shared/config.ts';

/**
 * `npm run seed`: with `npm start` running, a demo project under the owner "demo" and the
 * URL of its pricing page. Each run makes a new project (acme-analytics, -2, ...). With
 * `--json`, one line `{"slug","shareId","key","demoUrl"}` for scripts (the README's).
 */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.some((arg) => arg !== '--json')) throw new SeedError('Usage: npm run seed [-- --json]');
  const config = localConfig();
  const baseUrl = `http://127.0.0.1:${config.PORT}`;
  try {
    await fetch(`${baseUrl}/api/v1/projects`);
  } catch {
    throw new SeedError(
      `Nothing answers on ${baseUrl}: start the service with \`npm start\` first, then run \`npm run seed\`.`,
    );
  }
  // The key goes straight into the database of the running service, as `npm run cli -- keys create` does.
  connectDatabase(runningLocalDatabase(config));
  const key = await createApiKey({ ownerId: 'demo', permission: 'read_write', name: 'npm run seed' });
  // With the fake Stripe of `npm start` (no DEMO_STRIPE_KEY), the demo project's webhook
  // endpoint is registered there too, so purchases come back as signed events.
  const stripeKey = process.env.DEMO_STRIPE_KEY || undefined;
  const fakeStripe = config.FAKE_STRIPE_PORT ? `http://127.0.0.1:${config.FAKE_STRIPE_PORT}` : undefined;
  const stripeApiBase = stripeKey ? undefined : (config.STRIPE_API_BASE ?? fakeStripe);
  const demo = await seedDemo({ baseUrl, key: key.key, stripeKey, stripeApiBase });
  if (args.includes('--json')) {
    console.log(JSON.stringify({ slug: demo.slug, shareId: demo.shareId, key: key.key, demoUrl: demo.demoUrl }));
    return;
  }
  console.log(`Demo project "${demo.slug}" (owner "demo", share id ${demo.shareId}).
API key for it (shown once): ${key.key}

Open the demo pricing page (as the customer user_42):
  ${demo.demoUrl}?customer=user_42
Then: curl -H "Authorization: Bearer ${key.key}" ${baseUrl}/api/v1/projects/${demo.slug}/customers/user_42/entitlements`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof SeedError || error instanceof ConfigError ? error.message : error);
    process.exit(1);
  },
);
