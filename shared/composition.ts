import { connectDatabase } from '#db/service.ts';
import { type Authenticator, createAuthenticator } from '#domain/keys/keys.ts';
import type { RuntimeConfig } from './config.ts';
import { setLogLevel } from './logger.ts';

/** How to build each port from the parsed configuration. */
export type PortBuilders<P> = { [N in keyof P]: (config: RuntimeConfig) => P[N] };

/** What one process serves requests with: built once, from one parsed configuration. */
export interface App<P> {
  config: RuntimeConfig;
  ports: P;
  authenticate: Authenticator;
}

/**
 * The composition root: connects the database and builds the ports a process needs from
 * one configuration. A Lambda's entry composes at init with the ports of its group, so a
 * misconfigured stage fails its cold start with one line; `npm start` and the tests compose
 * every port from their own configuration, and nothing reads or writes process.env to pass
 * it on.
 */
export function compose<P extends object>(config: RuntimeConfig, builders: PortBuilders<P>): App<P> {
  connectDatabase(config);
  setLogLevel(config.LOG_LEVEL);
  const ports = Object.fromEntries(
    Object.entries(builders).map(([name, build]) => [name, (build as (c: RuntimeConfig) => unknown)(config)]),
  ) as P;
  // A port that runs work of its own with other ports (the local migration runner) takes them here.
  for (const port of Object.values(ports)) (port as { bindPorts?: (all: P) => void }).bindPorts?.(ports);
  return { config, ports, authenticate: createAuthenticator({ ttlMs: config.KEY_CACHE_TTL_SECONDS * 1000 }) };
}
