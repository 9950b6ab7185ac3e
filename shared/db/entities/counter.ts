import { defineEntity, entityModel } from './model.ts';

export const counterNames = ['project', 'feature', 'plan', 'planFeature', 'webhookEndpoint', 'experiment'] as const;

/** One atomic counter per resource kind: ids are allocated with ADD and never reused. */
export const counterEntity = defineEntity({
  model: entityModel('counter'),
  attributes: {
    name: { type: counterNames, required: true, readOnly: true },
    value: { type: 'number', required: true, default: 0 },
  },
  indexes: {
    byName: {
      pk: { field: 'pk', composite: ['name'], casing: 'none' },
      sk: { field: 'sk', composite: [], casing: 'none' },
    },
  },
});
