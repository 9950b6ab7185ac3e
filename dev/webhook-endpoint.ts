/** Why a webhook endpoint could not be created: no Stripe at that address, or its refusal. */
export class WebhookEndpointError extends Error {
  override name = 'WebhookEndpointError';
  constructor(
    message: string,
    /** Undefined when nothing answered. */
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * Creates a webhook endpoint for every event at `url` in the account of `secretKey`, with
 * Stripe's API (the fake Stripe of `npm start`, or Stripe's test mode), as an owner does once
 * in Stripe's dashboard; returns its signing secret, which Stripe shows only now.
 */
export async function createWebhookEndpoint(stripeApiBase: string, secretKey: string, url: string): Promise<string> {
  const endpoints = `${stripeApiBase.replace(/\/+$/, '')}/v1/webhook_endpoints`;
  const response = await fetch(endpoints, {
    method: 'POST',
    headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ url, 'enabled_events[0]': '*' }),
  }).catch(() => {
    throw new WebhookEndpointError(`No Stripe answers at ${endpoints}`);
  });
  const endpoint = (await response.json().catch(() => ({}))) as { secret?: string; error?: { message?: string } };
  if (!response.ok || !endpoint.secret) {
    throw new WebhookEndpointError(endpoint.error?.message ?? `Stripe answered ${response.status}`, response.status);
  }
  return endpoint.secret;
}
