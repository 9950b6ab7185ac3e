import { isIP } from 'node:net';

/**
 * Where a project's webhooks may go. A deployed stage sends only to public https hosts: an
 * endpoint must not turn the service into a way to reach its own network (link-local
 * 169.254.169.254 is the instance metadata service). Local runs and tests receive on
 * 127.0.0.1 over plain http, which their stage's config allows (`WEBHOOK_URLS=loopback`).
 */
export type WebhookUrlPolicy = 'public' | 'loopback';

/** Why a URL is refused, or undefined when it may be used. */
export function urlRefusal(raw: string, policy: WebhookUrlPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute https URL';
  }
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const loopbackAllowed = policy === 'loopback' && isLoopbackHost(host);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopbackAllowed)) {
    return policy === 'loopback'
      ? 'must be an https URL (plain http only to a loopback host)'
      : 'must be an absolute https URL';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (!loopbackAllowed && (host === 'localhost' || host.endsWith('.localhost') || isPrivateAddress(host))) {
    return 'must not name a private, loopback or link-local host';
  }
  return undefined;
}

const isLoopbackHost = (host: string) =>
  host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));

/**
 * True for an IP address that is not public: private (10/8, 172.16/12, 192.168/16, fc00::/7),
 * loopback, link-local (169.254/16, fe80::/10), unspecified, carrier-grade NAT (100.64/10),
 * and IPv4-mapped IPv6 forms of those. A name that is not an address is false: it is
 * checked once resolved, at delivery.
 */
export function isPrivateAddress(address: string): boolean {
  const kind = isIP(address);
  if (kind === 4) {
    const [a = 0, b = 0] = address.split('.').map(Number);
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      a >= 224
    );
  }
  if (kind === 6) {
    const lower = address.toLowerCase();
    const mapped = lower.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/);
    if (mapped?.[1]) return isPrivateAddress(mapped[1]);
    return (
      lower === '::' ||
      lower === '::1' ||
      /^f[cd]/.test(lower) ||
      /^fe[89ab]/.test(lower) ||
      lower.startsWith('ff') ||
      lower.startsWith('::ffff:')
    );
  }
  return false;
}
