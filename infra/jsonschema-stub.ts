/**
 * Stands in for `jsonschema` in the deployed bundles (infra/bundling.ts). ElectroDB uses it
 * only to check models: each Entity's at construction (as a beta model, then as v1) and, in
 * `new Service`, whether a member is a model or an Entity. Those checks are most of building
 * our entities at a cold start (docs/decisions.md, "Bundles and cold starts"). Our models are
 * fixed in code and pass the real check in every test run, which imports ElectroDB unbundled;
 * here the two questions get the answers the real check gives them: a plain object with a
 * `model` is a v1 model (against a schema that has one), anything else (an Entity) is not.
 */
interface Schema {
  properties?: Record<string, unknown>;
}

const refused = [{ property: 'instance', message: 'is not a v1 model', argument: undefined }];

export class Validator {
  declare customFormats: Record<string, unknown>;

  addSchema(): void {}

  validate(instance: unknown, schema: Schema): { errors: typeof refused } {
    const isPlainModel =
      typeof instance === 'object' &&
      instance !== null &&
      Object.getPrototypeOf(instance) === Object.prototype &&
      typeof (instance as { model?: unknown }).model === 'object';
    return { errors: isPlainModel && schema.properties?.model !== undefined ? [] : refused };
  }
}

Validator.prototype.customFormats = {};
