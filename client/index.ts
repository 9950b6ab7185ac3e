import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.d.ts';

export type { components, operations, paths } from './schema.d.ts';

export interface ClientOptions {
  /** Where the service answers, e.g. http://127.0.0.1:3000 (`npm start`). */
  baseUrl: string;
  /** An API key (`npm run cli -- keys create ...`); the public routes need none. */
  key?: string;
  /** Another fetch (tests, retries, a proxy). */
  fetch?: typeof globalThis.fetch;
}

export type PricingClient = Client<paths>;

/**
 * A typed client for the whole API: paths, parameters, bodies and answers are the types
 * openapi-typescript generated from docs/openapi.json (client/schema.d.ts). Each call returns
 * `{ data }` on success and `{ error }` (the `{"error":{code,message,details}}` body) otherwise.
 *
 *   const api = pricingClient({ baseUrl, key });
 *   const { data, error } = await api.POST('/api/v1/projects', { body: { name: 'Acme' } });
 */
export function pricingClient({ baseUrl, key, fetch }: ClientOptions): PricingClient {
  return createClient<paths>({
    baseUrl,
    headers: key ? { authorization: `Bearer ${key}` } : {},
    ...(fetch ? { fetch } : {}),
  });
}
