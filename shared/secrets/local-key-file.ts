import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, open as openFile, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '#shared/config.ts';
import { KEY_BYTES } from './envelope.ts';

// The local master key, in a file under DATA_DIR: for npm start and the tests (a deployed
// stage uses KMS).

export const LOCAL_KEY_FILE_NAME = 'payment-keys.key';

const KEY_TEXT = /^[A-Za-z0-9+/]{43}=$/;

/** Never quotes the content: it is, or is close to, the master key. */
function parseKeyText(text: string, path: string): Buffer {
  const trimmed = text.trim();
  const key = KEY_TEXT.test(trimmed) ? Buffer.from(trimmed, 'base64') : undefined;
  if (key?.length !== KEY_BYTES) {
    throw new ConfigError(
      `Invalid configuration: payment key file ${path} does not hold a base64-encoded ${KEY_BYTES}-byte key` +
        ' (if it is empty or damaged and nothing was sealed with it yet, delete it and npm start creates a new one)',
    );
  }
  return key;
}

const errorCode = (error: unknown) =>
  error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;

export function readLocalKeyFile(path: string): Buffer {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') {
      throw new ConfigError(
        `Invalid configuration: PAYMENT_KEY_FILE ${path} does not exist (npm start creates one under DATA_DIR;` +
          ' in a deployed stage set PAYMENT_KMS_KEY_ID instead)',
      );
    }
    throw new ConfigError(
      `Invalid configuration: PAYMENT_KEY_FILE ${path} cannot be read (${errorCode(error) ?? 'unknown error'})`,
    );
  }
  return parseKeyText(text, path);
}

/**
 * A second `npm start` racing the first may find the file created but not yet written;
 * it waits briefly for the content rather than calling the file corrupt.
 */
async function readExistingKeyText(path: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const text = await readFile(path, 'utf8').catch((error: unknown) => {
      throw new ConfigError(
        `Invalid configuration: payment key file ${path} cannot be read (${errorCode(error) ?? 'unknown error'})`,
      );
    });
    if (text.trim() !== '' || attempt >= 20) return text;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function ensureLocalKeyFile(
  dataDir: string,
): Promise<{ path: string; created: boolean; warning?: string }> {
  const path = join(dataDir, LOCAL_KEY_FILE_NAME);
  await mkdir(dataDir, { recursive: true });

  const key = randomBytes(KEY_BYTES);
  try {
    // 'wx' fails if the file exists, so two starts never overwrite each other's key.
    const handle = await openFile(path, 'wx', 0o600).catch((error: unknown) => {
      if (errorCode(error) === 'EEXIST') return undefined;
      throw error;
    });
    if (handle) {
      try {
        await handle.writeFile(`${key.toString('base64')}\n`);
      } catch (error) {
        await handle.close();
        await unlink(path).catch(() => undefined);
        throw error;
      }
      await handle.close();
      return { path, created: true };
    }
  } finally {
    key.fill(0);
  }

  parseKeyText(await readExistingKeyText(path), path).fill(0);
  if (process.platform === 'win32') return { path, created: false };
  const { mode } = await stat(path);
  if ((mode & 0o077) === 0) return { path, created: false };
  // A warning, not a failure: some filesystems (mounted volumes, FAT) cannot hold the mode.
  return {
    path,
    created: false,
    warning: `Payment key file ${path} is accessible to other users (mode ${(mode & 0o777).toString(8)}); run: chmod 600 ${path}`,
  };
}
