import { startFakeStripe } from '#dev/fake-stripe/index.ts';

/**
 * `tsx scripts/fake-stripe.ts`: the fake Stripe (dev/fake-stripe/) as a standalone server, so the service
 * can run locally with checkout working end to end and no Stripe account.
 */
async function main(): Promise<void> {
  const rawPort = process.env.FAKE_STRIPE_PORT ?? '12111';
  const port = Number(rawPort);
  if (!/^[0-9]+$/.test(rawPort) || port < 1 || port > 65535) {
    throw new Error(`FAKE_STRIPE_PORT must be a port number between 1 and 65535, not '${rawPort}'.`);
  }
  const fake = await startFakeStripe({ port });
  console.log(`Fake Stripe on ${fake.url} — start the service with STRIPE_API_BASE=${fake.url}`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await fake.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
