import { type LookupAddress, lookup } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { ATTEMPT_TIMEOUT_MS, type WebhookSender } from '#domain/webhooks-out/delivery.ts';
import { isPrivateAddress, urlRefusal, type WebhookUrlPolicy } from '#domain/webhooks-out/url-rules.ts';

/**
 * Sends one webhook attempt over HTTP(S): redirects are not followed (a 3xx is an answer
 * like any other non-2xx), and whatever does not answer within 10 s, or resets, is null.
 * Under the `public` policy the URL is checked again, and the host's addresses at the very
 * lookup the connection uses: DNS can point a name at a private address after the
 * endpoint was created.
 */
export function httpWebhookSender(policy: WebhookUrlPolicy, timeoutMs = ATTEMPT_TIMEOUT_MS): WebhookSender {
  const guardedLookup: LookupFunction = (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 4);
      if (policy === 'public' && addresses.some(({ address }) => isPrivateAddress(address))) {
        return callback(
          Object.assign(new Error(`${hostname} resolves to a private address`), { code: 'EPRIVATE' }),
          '',
          4,
        );
      }
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const [first] = addresses;
      return callback(null, first?.address ?? '', first?.family ?? 4);
    });
  };
  return {
    send(url, headers, body) {
      if (urlRefusal(url, policy)) return Promise.resolve(null);
      return new Promise((resolve) => {
        const target = new URL(url);
        const request = (target.protocol === 'https:' ? httpsRequest : httpRequest)(
          target,
          {
            method: 'POST',
            headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
            lookup: guardedLookup,
            signal: AbortSignal.timeout(timeoutMs),
          },
          (response) => {
            // The answer's body is not read: only its status counts.
            response.resume();
            resolve(response.statusCode ?? null);
          },
        );
        request.once('error', () => resolve(null));
        request.end(body);
      });
    },
  };
}
