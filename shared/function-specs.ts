import type { IndexName } from './db/table.ts';
import type { Ports } from './domain/ports.ts';
import type { Group } from './routes.ts';

/**
 * What one endpoint group's Lambda needs from its stage, declared once, as plain data (no
 * CDK here: a handler's bundle may import this file). infra/ turns each spec into IAM grants,
 * environment, timeout and bundled files; tests/infra asserts the synthesized stacks against
 * it. A new group in `Group` without a spec here is a type error.
 */
export interface GroupSpec {
  /**
   * The base table (pk/sk), named in TABLE_NAME. `read`: GetItem, BatchGetItem and Query; `readWrite`:
   * those and the writes of shared/db (PutItem, UpdateItem, DeleteItem, BatchWriteItem,
   * ConditionCheckItem; TransactWriteItems needs nothing more); `readDelete`: the reads and
   * the deletes (DeleteItem, BatchWriteItem), no more (the sweeper). Every group with a route that
   * is not public needs at least `read`: authentication is a GetItem of the API key by pk.
   */
  table: 'none' | 'read' | 'readWrite' | 'readDelete';
  /**
   * The payment records (rate limit, checkout sessions): GetItem, PutItem and UpdateItem on
   * the items whose partition key starts with `paymentRecordsKeyPrefix` (shared/db/table.ts),
   * and on no other item, so a public group that keeps them still reads nothing else of the
   * base table (API key hashes, sealed Stripe keys).
   */
  paymentRecords: 'none' | 'readWrite';
  /** The indexes the group Queries (Query is the only action an index takes). */
  indexes: readonly IndexName[];
  /** The payment-key KMS key: seal new Stripe keys (GenerateDataKey), open stored ones (Decrypt). */
  paymentKeys: 'none' | 'seal' | 'open';
  /**
   * The ports its actions are handed (shared/domain/ports.ts); the group's Lambda entry must
   * build exactly these, so a bundle carries only the adapters it uses. The keyring goes with
   * `paymentKeys`, the payment gateway with calls to each project's Stripe account.
   */
  ports: readonly (keyof Ports)[];
  /** The function's timeout; API Gateway gives up on an integration after 30 s. */
  timeoutSeconds: number;
  /** Files built into the bundle's directory, beside the code that reads them. */
  assets: readonly GroupAsset[];
}

/** A file a function serves from its own directory (infra/ knows how to build each). */
export type GroupAsset = 'widget.js';

/**
 * A function that reads and writes the base table and nothing else, in 10 s: each spec below
 * says where it differs.
 */
const baseTableOnly = {
  table: 'readWrite',
  paymentRecords: 'none',
  indexes: [],
  paymentKeys: 'none',
  ports: [],
  timeoutSeconds: 10,
  assets: [],
} as const;

export const groupSpecs = {
  // Public reads only, by share id: readSharePartition is one Query on gsi1 (byShareId). No
  // route authenticates, so the base table (API key hashes by pk) stays out of reach.
  share: { ...baseTableOnly, table: 'none', indexes: ['gsi1'], assets: ['widget.js'] },
  // Public checkout and receipts: loadSharedProject is one Query on gsi1, the rate limit is a
  // conditional UpdateItem or PutItem of its payment record, a checkout puts its session's
  // record and a receipt gets it; openPaymentKey decrypts the project's sealed Stripe key. It waits on Stripe: at worst 2 × STRIPE_TIMEOUT_MS
  // (5 s by default) + 1 s of retry backoff (shared/config.ts).
  payments: {
    ...baseTableOnly,
    table: 'none',
    paymentRecords: 'readWrite',
    indexes: ['gsi1'],
    paymentKeys: 'open',
    ports: ['keyring', 'payments', 'clock'],
    timeoutSeconds: 15,
  },
  // Stripe's webhooks: the project by share id (Query gsi1, inactive ones too), its sealed
  // signing secret opened (Decrypt), and the customer's read-modify-write (GetItem, then
  // TransactWriteItems of a ConditionCheck of the project and a Put of the customer). Kept
  // apart from `payments`, whose checkout and receipt need no table access at all.
  webhooks: { ...baseTableOnly, indexes: ['gsi1'], paymentKeys: 'open', ports: ['keyring', 'webhooks'] },
  // Auth (GetItem apiKey), project reads (Query projectData), the id counter (UpdateItem),
  // create/update and the delete transaction (PutItem, UpdateItem, DeleteItem); the project
  // list and the free-slug search Query gsi2 (byOwner); a paymentSecretKey is sealed; a
  // deleted project's sweep is handed to the sweep queue (SendMessage).
  projects: { ...baseTableOnly, indexes: ['gsi2'], paymentKeys: 'seal', ports: ['keyring', 'sweeps'] },
  // Auth, project reads (GetItem, Query projectData), counter, feature transactions and the
  // assignment sweep: the base table only.
  features: { ...baseTableOnly },
  // Auth, project reads, counter, plan and assignment transactions (with ConditionCheckItem)
  // and sweeps; migrations put new prices on Stripe subscriptions and hand large ones to the
  // sweep queue.
  plans: { ...baseTableOnly, paymentKeys: 'open', ports: ['keyring', 'payments', 'migrations'] },
  // The committed OpenAPI document (docs/openapi.json), bundled gzipped (functions/docs/openapi-gzip.ts):
  // no table, no keys.
  docs: { ...baseTableOnly, table: 'none' },
  // Auth, project reads (Query projectData), customers (GetItem, Query of the project's
  // customer partition, the grant's TransactWriteItems with a ConditionCheck, DeleteItem),
  // entitlements with usage (BatchGetItem), usage events (BatchGetItem, TransactWriteItems
  // of Puts and Updates, BatchWriteItem for deletes) and consumes (BatchGetItem,
  // TransactWriteItems with ConditionChecks). Plan changes (lifecycle.md §2) call the project's
  // Stripe account with its key (Decrypt) and sign or verify customer tokens
  // (CUSTOMER_TOKEN_KEYS); their public calls find the project by share id (Query gsi1) and
  // count in the payment records' rate limit. It waits on Stripe as payments does.
  customers: {
    ...baseTableOnly,
    paymentRecords: 'readWrite',
    indexes: ['gsi1'],
    paymentKeys: 'open',
    ports: ['keyring', 'payments', 'clock', 'tokenKeys'],
    timeoutSeconds: 15,
  },
} as const satisfies Record<Group, GroupSpec>;

/** The groups, in the order of their specs. */
export const groupNames = Object.keys(groupSpecs) as Group[];

/** Functions no route reaches, each started by its own trigger (infra/sweep-stack.ts). */
export type Worker = 'sweeper' | 'webhooksOut';

export const workerSpecs = {
  // Sweeps deleted projects' items, from the sweep queue and from a periodic check: reads the
  // sweep record (GetItem) and the partition page by page (Query), deletes items
  // (BatchWriteItem) and at last the record (DeleteItem), and hands an unfinished sweep back
  // to the queue (SendMessage). It stops SWEEP_MARGIN_MS before this timeout, between batches.
  // It also runs the plan migrations too large for a request (the same queue): those write
  // customers (TransactWriteItems) and reprice Stripe subscriptions with the project's key.
  sweeper: {
    ...baseTableOnly,
    paymentKeys: 'open',
    ports: ['sweeps', 'migrations', 'keyring', 'payments'],
    timeoutSeconds: 120,
  },
  // Webhooks out (lifecycle.md §4), fed by the table's stream (new outbox items) and the
  // delivery queue: a dispatch reads the project's endpoints (Query), puts deliveries
  // (PutItem, GetItem when one exists) and deletes the outbox item (DeleteItem); an attempt
  // reads its delivery and endpoints, opens the endpoint's sealed secret (Decrypt) and
  // records the outcome (UpdateItem). The queue's grants come with its stack.
  webhooksOut: { ...baseTableOnly, paymentKeys: 'open', ports: ['keyring'], timeoutSeconds: 30 },
} as const satisfies Record<Worker, GroupSpec>;

/** Every function's spec, route groups and workers. */
export const functionSpecs: Record<Group | Worker, GroupSpec> = { ...groupSpecs, ...workerSpecs };
