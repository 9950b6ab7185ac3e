import type { ProjectItem } from '#db/types.ts';
import { PaymentsNotConfiguredError } from '../errors.ts';
import { type Keyring, SecretUnreadableError } from '../ports.ts';

/**
 * A project's Stripe webhook signing secret (`whsec_…`), sealed at rest exactly like its
 * payment key: same keyring, its own encryption context, so neither sealed value opens as
 * the other, nor on another project.
 */
const contextOf = (projectId: number) => ({ projectId: String(projectId), field: 'paymentWebhookSecret' });

export async function sealWebhookSecret(keyring: Keyring, projectId: number, secret: string) {
  return { webhookSecretSealed: await keyring.seal(secret, contextOf(projectId)) };
}

/** The plaintext secret, to verify one event; never stored in clear, logged or returned. */
export async function openWebhookSecret(keyring: Keyring, project: ProjectItem): Promise<string> {
  if (!project.webhookSecretSealed) {
    throw new PaymentsNotConfiguredError(
      'This project takes no Stripe webhooks yet: its owner has not set paymentWebhookSecret.',
    );
  }
  try {
    return await keyring.open(project.webhookSecretSealed, contextOf(project.projectId));
  } catch (error) {
    if (error instanceof SecretUnreadableError) {
      throw new PaymentsNotConfiguredError(
        "This project's webhook secret can no longer be read; the owner must set paymentWebhookSecret again.",
      );
    }
    throw error;
  }
}
