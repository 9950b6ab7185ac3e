import type { RuntimeConfig } from '#shared/config.ts';

/**
 * Where this service is reached from outside, for URLs it hands out (a project's
 * webhookUrl): PUBLIC_BASE_URL when configured (a deployed stage sets it from its API or
 * CDN URL), else the URL the request came in on (locally, the server's own).
 */
export function publicBaseUrl(
  config: Pick<RuntimeConfig, 'PUBLIC_BASE_URL'>,
  headers: Record<string, string | undefined>,
): string {
  if (config.PUBLIC_BASE_URL) return config.PUBLIC_BASE_URL.replace(/\/+$/, '');
  const host = headers.host ?? '127.0.0.1';
  const proto = headers['x-forwarded-proto']?.split(',')[0]?.trim() === 'https' ? 'https' : 'http';
  return `${proto}://${host}`;
}
