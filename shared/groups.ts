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
   * The base table (pk/sk), named in TABLE_NAME. `read`: GetItem and Query; `readWrite`:
   * those and the writes of shared/db (PutItem, UpdateItem, DeleteItem, BatchWriteItem,
   * ConditionCheckItem; TransactWriteItems needs nothing more). Every group with a route that
   * is not public needs at least `read`: authentication is a GetItem of the API key by pk.
   */
  table: 'none' | 'read' | 'readWrite';
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

export const groupSpecs = {
  // Public reads only, by share id: readSharePartition is one Query on gsi1 (byShareId). No
  // route authenticates, so the base table (API key hashes by pk) stays out of reach.
  share: {
    table: 'none',
    indexes: ['gsi1'],
    paymentKeys: 'none',
    ports: [],
    timeoutSeconds: 10,
    assets: ['widget.js'],
  },
  // Public checkout and receipts: loadSharedProject is one Query on gsi1, openPaymentKey
  // decrypts the project's sealed Stripe key. It waits on Stripe: at worst 2 × STRIPE_TIMEOUT_MS
  // (5 s by default) + 1 s of retry backoff (shared/config.ts).
  payments: {
    table: 'none',
    indexes: ['gsi1'],
    paymentKeys: 'open',
    ports: ['keyring', 'payments'],
    timeoutSeconds: 15,
    assets: [],
  },
  // Stripe's webhooks: the project by share id (Query gsi1, inactive ones too), its sealed
  // signing secret opened (Decrypt), and the customer's read-modify-write (GetItem, then
  // TransactWriteItems of a ConditionCheck of the project and a Put of the customer). Kept
  // apart from `payments`, whose checkout and receipt need no table access at all.
  webhooks: {
    table: 'readWrite',
    indexes: ['gsi1'],
    paymentKeys: 'open',
    ports: ['keyring', 'webhooks'],
    timeoutSeconds: 10,
    assets: [],
  },
  // Auth (GetItem apiKey), project reads (Query projectData), the id counter (UpdateItem),
  // create/update/delete and the sweep (PutItem, UpdateItem, BatchWriteItem, DeleteItem); the
  // project list and the free-slug search Query gsi2 (byOwner); a paymentSecretKey is sealed.
  projects: {
    table: 'readWrite',
    indexes: ['gsi2'],
    paymentKeys: 'seal',
    ports: ['keyring'],
    timeoutSeconds: 10,
    assets: [],
  },
  // Auth, project reads (GetItem, Query projectData), counter, feature transactions and the
  // assignment sweep: the base table only.
  features: { table: 'readWrite', indexes: [], paymentKeys: 'none', ports: [], timeoutSeconds: 10, assets: [] },
  // Auth, project reads, counter, plan and assignment transactions (with ConditionCheckItem)
  // and sweeps: the base table only.
  plans: { table: 'readWrite', indexes: [], paymentKeys: 'none', ports: [], timeoutSeconds: 10, assets: [] },
  // Auth, project reads (Query projectData), customers (GetItem, Query of the project's
  // customer partition, the grant's TransactWriteItems with a ConditionCheck, DeleteItem):
  // the base table only, no key.
  customers: { table: 'readWrite', indexes: [], paymentKeys: 'none', ports: [], timeoutSeconds: 10, assets: [] },
} as const satisfies Record<Group, GroupSpec>;

/** The groups, in the order of their specs. */
export const groupNames = Object.keys(groupSpecs) as Group[];
