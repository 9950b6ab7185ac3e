import type { SweepQueue } from '#domain/ports.ts';
import { resumableSweeps, runProjectSweep } from '#domain/projects/delete.ts';
import { log } from '#shared/logger.ts';

/** How long a sweep that failed (DynamoDB Local busy, say) waits before it is tried again. */
const RETRY_MS = 1_000;

/**
 * The local server's sweep queue: deleted projects are swept one at a time in the
 * background of the server's own process, as the sweeper function does in a stage. Nothing
 * here needs to survive the process: every sweep keeps its record in the table until it ends,
 * and the server resumes all of them at its next start (`resumePending`). `stop()` lets the
 * sweep under way end its current batch and returns; what it did not reach waits for that.
 */
export class LocalSweeper implements SweepQueue {
  private readonly queue: number[] = [];
  private running: Promise<void> | undefined;
  private stopping = false;
  private readonly retries = new Set<NodeJS.Timeout>();

  async enqueue(projectId: number): Promise<void> {
    if (this.stopping || this.queue.includes(projectId)) return;
    this.queue.push(projectId);
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
    });
  }

  /** Queues every sweep a previous run left unfinished. */
  async resumePending(): Promise<void> {
    for (const projectId of await resumableSweeps(0)) await this.enqueue(projectId);
  }

  /** Resolves once no sweep is queued or under way (tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Stops after the current batch; unfinished sweeps stay pending in the table. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const timer of this.retries) clearTimeout(timer);
    this.queue.length = 0;
    await this.idle();
  }

  private async drain(): Promise<void> {
    const budget = { exhausted: () => this.stopping };
    for (let projectId = this.queue.shift(); projectId !== undefined; projectId = this.queue.shift()) {
      try {
        await runProjectSweep(projectId, budget);
      } catch (error) {
        log({
          level: 'error',
          msg: 'project sweep failed; retrying',
          projectId,
          error: { name: (error as Error).name, message: (error as Error).message },
        });
        this.retryLater(projectId);
      }
    }
  }

  private retryLater(projectId: number): void {
    const timer = setTimeout(() => {
      this.retries.delete(timer);
      void this.enqueue(projectId);
    }, RETRY_MS);
    timer.unref();
    this.retries.add(timer);
  }
}

export const localSweeperFor = (): LocalSweeper => new LocalSweeper();
