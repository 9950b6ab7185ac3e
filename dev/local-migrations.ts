import type { MigrationJob, MigrationQueue, Ports } from '#domain/ports.ts';
import { runMigration } from '#domain/versions/migrate.ts';
import { log } from '#shared/logger.ts';

/**
 * The local server's migration queue: large plan migrations run one at a time in the
 * background of the server's own process, as the sweeper function runs them in a stage.
 * Nothing here needs to survive the process: a migration cut short is finished by sending it
 * again (who has moved is read from the table). The runner takes the process's payment ports
 * once the composition has built them (`bindPorts`).
 */
export class LocalMigrations implements MigrationQueue {
  private readonly queue: MigrationJob[] = [];
  private running: Promise<void> | undefined;
  private stopping = false;
  private ports: Pick<Ports, 'keyring' | 'payments'> | undefined;

  bindPorts(ports: Pick<Ports, 'keyring' | 'payments'>): void {
    this.ports = ports;
  }

  async enqueue(job: MigrationJob): Promise<void> {
    if (this.stopping) return;
    this.queue.push(job);
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
    });
  }

  /** Resolves once no migration is queued or under way (tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Stops after the current group of customers; the rest waits for the migration to be sent again. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.queue.length = 0;
    await this.idle();
  }

  private async drain(): Promise<void> {
    const budget = { exhausted: () => this.stopping };
    for (let job = this.queue.shift(); job !== undefined; job = this.queue.shift()) {
      if (!this.ports) throw new Error('LocalMigrations: no ports bound');
      try {
        const outcome = await runMigration(this.ports, job, budget);
        log({ level: 'info', msg: 'plan migration', planId: job.planId, toVersion: job.toVersion, outcome });
      } catch (error) {
        log({
          level: 'error',
          msg: 'plan migration failed; send it again to finish it',
          planId: job.planId,
          error: { name: (error as Error).name, message: (error as Error).message },
        });
      }
    }
  }
}

export const localMigrationsFor = (): LocalMigrations => new LocalMigrations();
