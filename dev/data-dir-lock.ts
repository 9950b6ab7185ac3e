import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * One DynamoDB Local per data directory: two would write the same SQLite files while the CLI
 * finds only one of them. The Java process ends with the process that started it (its stdin
 * closes: dev/loopback/LoopbackDynamoDBLocal.java), yet it may still be on its way out when
 * the next `npm start` begins, and a second `npm start` may name the same DATA_DIR.
 *
 * `dynamodb-local.pid` in the directory names the process that owns the directory and its
 * Java. The next start stops a Java whose owner is gone (its leftover) and refuses to start
 * while the owner runs.
 */

const PID_FILE = 'dynamodb-local.pid';
const STOP_WAIT_MS = 5000;

interface Holder {
  owner: number;
  java: number | null;
}

export interface DataDirLock {
  /** Records the Java process now serving the directory. */
  recordJava(pid: number): void;
  /** Gives the directory up (only while the file still names this process). */
  release(): void;
  /** Said once on stdout: a leftover Java was stopped. */
  notice: string | undefined;
}

/** DynamoDB Local cannot start: its data directory, port or Java is not there for it. */
export class DynamoLocalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DynamoLocalError';
  }
}

interface ProcessInfo {
  ppid: number;
  args: string[];
}

/** A live process's parent and command line (a zombie counts as gone). */
function processInfo(pid: number): ProcessInfo | undefined {
  if (existsSync('/proc/self/stat')) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The command (field 2) may hold spaces and parentheses: the fields after the last ')'.
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z' || state === 'X') return undefined;
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      return { ppid: Number(ppid), args };
    } catch {
      return undefined;
    }
  }
  const ps = spawnSync('ps', ['-o', 'ppid=,stat=,args=', '-p', String(pid)], { encoding: 'utf8' });
  const match = /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(ps.stdout.trim());
  if (ps.status !== 0 || !match || match[2]?.startsWith('Z')) return undefined;
  return { ppid: Number(match[1]), args: (match[3] ?? '').split(' ') };
}

/** Whether `pid` is DynamoDB Local (our launcher) serving `dataDir`. */
function servesDataDir(info: ProcessInfo, dataDir: string): boolean {
  const at = info.args.indexOf('-dbPath');
  return info.args.includes('LoopbackDynamoDBLocal') && at >= 0 && info.args[at + 1] === dataDir;
}

async function waitGone(pid: number, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(50)) {
    if (!processInfo(pid)) return true;
  }
  return !processInfo(pid);
}

/** SIGTERM (the database files are closed on the way out), then SIGKILL. */
async function stopLeftover(pid: number): Promise<void> {
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    if (await waitGone(pid, STOP_WAIT_MS)) return;
  }
  throw new DynamoLocalError(`DynamoDB Local (pid ${pid}) left running by an earlier start does not stop.`);
}

function readHolder(file: string): Holder | undefined {
  try {
    const holder = JSON.parse(readFileSync(file, 'utf8')) as Partial<Holder>;
    if (typeof holder.owner !== 'number') return undefined;
    return { owner: holder.owner, java: typeof holder.java === 'number' ? holder.java : null };
  } catch {
    return undefined;
  }
}

/**
 * Takes `dataDir` (an absolute path) for this process: stops a leftover Java of a start that
 * is gone, and throws DynamoLocalError while another live process holds it.
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const file = join(dataDir, PID_FILE);
  let notice: string | undefined;
  for (let attempt = 0; ; attempt++) {
    try {
      // 'wx': of two starts at once, one creates the file and the other reads it.
      writeFileSync(file, `${JSON.stringify({ owner: process.pid, java: null })}\n`, { flag: 'wx', mode: 0o600 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw error;
    }
    const holder = readHolder(file);
    const java = holder?.java ? processInfo(holder.java) : undefined;
    const ours = holder?.java && java && servesDataDir(java, dataDir) ? holder.java : undefined;
    const ownerRuns = holder !== undefined && holder.owner !== process.pid && processInfo(holder.owner) !== undefined;
    if (holder && ownerRuns && (holder.java === null || (ours !== undefined && java?.ppid === holder.owner))) {
      throw new DynamoLocalError(
        `DATA_DIR ${dataDir} is in use by another process (pid ${holder.owner}) that runs DynamoDB Local on it: stop that one first (Ctrl-C in its terminal), or set DATA_DIR to another directory.`,
      );
    }
    if (ours !== undefined) {
      await stopLeftover(ours);
      notice = `Stopped DynamoDB Local (pid ${ours}) left running on ${dataDir} by a start that ended without stopping it.`;
    }
    rmSync(file, { force: true });
  }
  let java: number | null = null;
  return {
    notice,
    recordJava(pid) {
      java = pid;
      writeFileSync(file, `${JSON.stringify({ owner: process.pid, java })}\n`, { mode: 0o600 });
    },
    release() {
      if (readHolder(file)?.owner === process.pid) rmSync(file, { force: true });
    },
  };
}
