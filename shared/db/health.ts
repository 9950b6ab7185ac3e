import { db } from './service.ts';

/**
 * Asks the table one cheap question: a Query on the share index for a key no project can
 * hold (share ids are lower-case letters and digits). It reads nothing and proves the table,
 * the index and the credentials answer. Throws when they do not.
 */
export async function queryTable(): Promise<void> {
  await db().collections.share({ shareId: '-health-' }).go({ limit: 1 });
}
