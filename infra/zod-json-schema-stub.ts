/**
 * Stands in for zod's JSON Schema conversion in the deployed bundles (infra/bundling.ts,
 * `zodWithoutJsonSchema`). zod's classic schemas import it for `schema.toJSONSchema()` and
 * Standard Schema's `~standard.jsonSchema`, which no function calls: the OpenAPI document is
 * written by `npm run openapi`, outside the functions. Only those calls change: they throw.
 * `aggregateChecks` (what `.minLength`, `.maxLength`, `.format` and friends read) is zod's own.
 */
export { aggregateChecks } from '../node_modules/zod/v4/core/json-schema-processors.js';

function unavailable(): never {
  throw new Error('zod JSON Schema conversion is left out of the deployed bundles (infra/zod-json-schema-stub.ts)');
}

export const createToJSONSchemaMethod = () => unavailable;
export const createStandardJSONSchemaMethod = () => unavailable;

export {
  unavailable as anyProcessor,
  unavailable as arrayProcessor,
  unavailable as bigintProcessor,
  unavailable as booleanProcessor,
  unavailable as catchProcessor,
  unavailable as customProcessor,
  unavailable as dateProcessor,
  unavailable as defaultProcessor,
  unavailable as enumProcessor,
  unavailable as fileProcessor,
  unavailable as functionProcessor,
  unavailable as intersectionProcessor,
  unavailable as lazyProcessor,
  unavailable as literalProcessor,
  unavailable as mapProcessor,
  unavailable as nanProcessor,
  unavailable as neverProcessor,
  unavailable as nonoptionalProcessor,
  unavailable as nullProcessor,
  unavailable as nullableProcessor,
  unavailable as numberProcessor,
  unavailable as objectProcessor,
  unavailable as optionalProcessor,
  unavailable as pipeProcessor,
  unavailable as prefaultProcessor,
  unavailable as promiseProcessor,
  unavailable as readonlyProcessor,
  unavailable as recordProcessor,
  unavailable as setProcessor,
  unavailable as stringProcessor,
  unavailable as successProcessor,
  unavailable as symbolProcessor,
  unavailable as templateLiteralProcessor,
  unavailable as transformProcessor,
  unavailable as tupleProcessor,
  unavailable as undefinedProcessor,
  unavailable as unionProcessor,
  unavailable as unknownProcessor,
  unavailable as voidProcessor,
};
