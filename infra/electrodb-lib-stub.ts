/**
 * Stands in for `@aws-sdk/lib-dynamodb` where ElectroDB's client module requires it, in the
 * deployed bundles (infra/bundling.ts, `electrodbWithoutLib`). ElectroDB reads it only to wrap
 * a bare DocumentClient; ours reaches it already wrapped, with the commands it sends
 * (shared/db/service.ts, `electrodbClientOn`).
 */
export {};
