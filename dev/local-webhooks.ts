import { db } from '#db/service.ts';
import type { ProjectItem } from '#db/types.ts';
import { openPaymentKey } from '#domain/payments/account.ts';
import { webhookUrl } from '#domain/payments/payment-key.ts';
import { openWebhookSecret } from '#domain/payments/webhook-secret.ts';
import type { Keyring } from '#domain/ports.ts';
import { updateProject } from '#domain/projects/projects.ts';
import { createWebhookEndpoint } from './webhook-endpoint.ts';

type ConnectOptions = { keyring: Keyring; stripeApiBase: string; publicBaseUrl: string };

export interface ConnectedWebhooks {
  /** Projects whose webhook endpoint the fake Stripe now has. */
  connected: number;
  /** Projects the fake Stripe refused or could not be reached for, with why. */
  failed: { slug: string; ownerId: string; reason: string }[];
}

/**
 * What `npm start` does with the fake Stripe, as an owner does once in Stripe's dashboard:
 * every project with a payment key gets a webhook endpoint at its webhookUrl, for all the
 * events the fake sends, and the endpoint's signing secret becomes the project's
 * paymentWebhookSecret. The fake keeps its endpoints in memory, so this runs at every start;
 * it gives one account and URL the same secret every time, so a project that already holds it
 * is not written again. A project given a payment key while the server runs is connected by
 * `npm run seed` (the demo project), at the next start, or by a POST to the fake's
 * /v1/webhook_endpoints as with Stripe.
 */
export async function connectLocalWebhooks(options: ConnectOptions): Promise<ConnectedWebhooks> {
  const result: ConnectedWebhooks = { connected: 0, failed: [] };
  for (const project of await projectsWithPaymentKeys()) {
    try {
      await connectProject(project, options);
      result.connected++;
    } catch (error) {
      result.failed.push({ slug: project.slug, ownerId: project.ownerId, reason: (error as Error).message });
    }
  }
  return result;
}

async function connectProject(project: ProjectItem, { keyring, stripeApiBase, publicBaseUrl }: ConnectOptions) {
  const secretKey = await openPaymentKey(keyring, project);
  const secret = await createWebhookEndpoint(stripeApiBase, secretKey, webhookUrl(publicBaseUrl, project.shareId));
  const stored = project.webhookSecretSealed ? await openWebhookSecret(keyring, project).catch(() => '') : '';
  if (stored === secret) return;
  await updateProject(
    keyring,
    { ownerId: project.ownerId, slug: project.slug },
    { paymentWebhookSecret: secret },
    publicBaseUrl,
    // No API key makes this write: the change log names the local server as its writer.
    { keyId: 'npm-start' },
  );
}

/** Every project of every owner with a payment key: a local table, so one Scan is fine. */
async function projectsWithPaymentKeys(): Promise<ProjectItem[]> {
  const { data } = await db()
    .entities.project.scan.where(({ paymentKeySealed }, { exists }) => exists(paymentKeySealed))
    .go({ pages: 'all' });
  return data;
}
