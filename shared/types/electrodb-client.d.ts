/**
 * ElectroDB's wrapper of a v3 DocumentClient, which its package root does not export: handed
 * the commands it sends (`lib.GetCommand`, …), it stands as an ElectroDB client as it is
 * (shared/db/service.ts, `electrodbClientOn`).
 */
declare module 'electrodb/src/client.js' {
  import type { DocumentClient } from 'electrodb';

  export class DocumentClientV3Wrapper {
    constructor(client: DocumentClient, lib: Record<string, unknown>);
  }
}
