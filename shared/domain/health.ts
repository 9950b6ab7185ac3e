import { queryTable } from '#db/health.ts';
import { log } from '#shared/logger.ts';

/** How long a health check waits for the table before it calls the service unavailable. */
const HEALTH_TIMEOUT_MS = 2_000;

/** Whether the table answers within the timeout. Never throws: a failure is the answer. */
export async function tableIsHealthy(timeoutMs = HEALTH_TIMEOUT_MS): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const outcome = await Promise.race([queryTable().then(() => 'answered' as const), timeout]);
    if (outcome === 'timeout')
      log({ level: 'error', msg: 'health check: the table did not answer in time', timeoutMs });
    return outcome === 'answered';
  } catch (error) {
    log({
      level: 'error',
      msg: 'health check: the table refused',
      error: error instanceof Error ? error.name : 'unknown',
    });
    return false;
  } finally {
    clearTimeout(timer);
  }
}
