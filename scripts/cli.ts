import { parseArgs } from 'node:util';
import { connectDatabase } from '#db/service.ts';
import { localConfig } from '#dev/local-config.ts';
import { runningLocalDatabase } from '#dev/local-credential.ts';
import { DomainError } from '#domain/errors.ts';
import * as keys from '#domain/keys/keys.ts';
import { ConfigError } from '#shared/config.ts';

const usage = `Usage: npm run cli -- <command>

  keys create --owner <ownerId> --permission read|read_write [--name <label>] [--json]
      Creates an API key and prints it once. With --json: {"key","id","ownerId","permission"}.
  keys list --owner <ownerId> [--json]
      Lists the owner's keys (never their secrets).
  keys revoke <keyId> [--json]
      Revokes a key: requests with it get 401 from then on (at most 60 s later on a warm Lambda).

Talks to DYNAMODB_ENDPOINT and TABLE_NAME; by default the database of a running \`npm start\`
(http://127.0.0.1:\${DYNAMODB_PORT:-8000}, table pricing-local), with the local credential it
keeps in \${DATA_DIR:-.data} (or, for DATA_DIR=:memory:, in a private temp dir by port).

  --aws   use the DynamoDB table of a deployed stage instead, with your AWS credentials:
          TABLE_NAME=<TableName output of cdk deploy> AWS_REGION=<region> npm run cli -- --aws keys ...`;

class UsageError extends Error {}

/** The local or given DynamoDB the CLI talks to, for its error message. */
let endpoint: string | undefined;

async function run(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      owner: { type: 'string' },
      permission: { type: 'string' },
      name: { type: 'string' },
      json: { type: 'boolean', default: false },
      aws: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [resource, command, ...rest] = positionals;
  if (values.help || !resource) {
    console.log(usage);
    return;
  }
  if (resource !== 'keys') throw new UsageError(`Unknown command "${resource}".`);

  // The data layer on the local database unless told otherwise.
  const config = localConfig();
  if (values.aws) {
    // A deployed stage's table has a generated name, and a default region could be the
    // wrong account's: both must be said, never assumed.
    if (config.DYNAMODB_ENDPOINT) throw new UsageError('--aws and DYNAMODB_ENDPOINT exclude each other.');
    if (!process.env.TABLE_NAME) throw new UsageError('--aws needs TABLE_NAME: the TableName output of `cdk deploy`.');
    if (!process.env.AWS_REGION) throw new UsageError('--aws needs AWS_REGION: the region the stage is deployed in.');
  }
  const database = values.aws ? config : runningLocalDatabase(config);
  endpoint = database.DYNAMODB_ENDPOINT;
  connectDatabase(database);
  const print = (json: unknown, text: string) => console.log(values.json ? JSON.stringify(json) : text);

  switch (command) {
    case 'create': {
      if (!values.owner || !values.permission) throw new UsageError('keys create needs --owner and --permission.');
      const key = await keys.createApiKey({
        ownerId: values.owner,
        permission: values.permission as never,
        name: values.name,
      });
      print(
        { key: key.key, id: key.id, ownerId: key.ownerId, permission: key.permission },
        `Created ${key.permission} key ${key.id} for owner "${key.ownerId}". It is shown once; store it now:\n${key.key}`,
      );
      return;
    }
    case 'list': {
      if (!values.owner) throw new UsageError('keys list needs --owner.');
      const list = await keys.listApiKeys(values.owner);
      print(
        list,
        list.length === 0
          ? `Owner "${values.owner}" has no keys.`
          : list
              .map(
                (k) =>
                  `${k.id}  ${k.permission.padEnd(10)}  ${k.createdAt}  ${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'}  ${k.name}`,
              )
              .join('\n'),
      );
      return;
    }
    case 'revoke': {
      const [keyId] = rest;
      if (!keyId) throw new UsageError('keys revoke needs a key id.');
      const revoked = await keys.revokeApiKey(keyId);
      print(
        { id: revoked.id, ownerId: revoked.ownerId, revokedAt: revoked.revokedAt },
        `Revoked key ${revoked.id} of owner "${revoked.ownerId}".`,
      );
      return;
    }
    default:
      throw new UsageError(`Unknown keys command "${command ?? ''}".`);
  }
}

/** ElectroDB wraps the SDK's error; look through the causes for an unreachable database or table. */
function unreachable(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ECONNREFUSED' || e.name === 'ResourceNotFoundException' || e instanceof AggregateError) return true;
  }
  return false;
}

run(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    const code = (error as { code?: unknown }).code;
    if (error instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
      console.error(`${(error as Error).message}\n\n${usage}`);
      process.exit(2);
    }
    if (error instanceof DomainError || error instanceof ConfigError) {
      console.error(error.message);
    } else if (unreachable(error) && endpoint) {
      console.error(
        `Cannot reach the table at ${endpoint}: start the service with \`npm start\` (or set DYNAMODB_ENDPOINT and TABLE_NAME).`,
      );
    } else {
      console.error(error);
    }
    process.exit(1);
  },
);
