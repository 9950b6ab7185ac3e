import { type RuntimeConfig, runtimeConfig } from './config.ts';

/**
 * One JSON object per line on stdout: CloudWatch Logs Insights reads the fields as they
 * are. Callers pass only what is safe to keep: never a key, a secret or a body.
 */
export type LogLine = Record<string, unknown> & { level: 'debug' | 'info' | 'error'; msg: string };

type Sink = (line: string) => void;
let sink: Sink = (line) => process.stdout.write(`${line}\n`);

const rank = { debug: 0, info: 1, error: 2, silent: 3 } as const;
let level: RuntimeConfig['LOG_LEVEL'] | undefined;

/** Set by the composition root; until then, the environment's LOG_LEVEL. */
export function setLogLevel(next: RuntimeConfig['LOG_LEVEL']): void {
  level = next;
}

export function log(line: LogLine): void {
  level ??= runtimeConfig().LOG_LEVEL;
  if (rank[line.level] < rank[level]) return;
  sink(JSON.stringify({ time: new Date().toISOString(), ...line }));
}

/** Tests capture log lines to prove what never appears in them. */
export function setLogSink(next: Sink): () => void {
  const previous = sink;
  sink = next;
  return () => {
    sink = previous;
  };
}
