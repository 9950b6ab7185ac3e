import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Service } from 'electrodb';
import { runtimeConfig } from '#shared/config.ts';
import { createDocumentClient, dynamoOptions } from './client.ts';
import { ApiKey } from './entities/api-key.ts';
import { Counter } from './entities/counter.ts';
import { Feature } from './entities/feature.ts';
import { Plan } from './entities/plan.ts';
import { PlanFeature } from './entities/plan-feature.ts';
import { Project } from './entities/project.ts';

const entities = {
  project: Project,
  feature: Feature,
  plan: Plan,
  planFeature: PlanFeature,
  apiKey: ApiKey,
  counter: Counter,
};

function createService(client: DynamoDBDocumentClient, table: string) {
  return new Service(entities, { client, table });
}

export type PricingService = ReturnType<typeof createService>;

let service: PricingService | undefined;

/** The one Service, created on first use from the runtime config and reused while warm. */
export function db(): PricingService {
  if (!service) {
    const config = runtimeConfig();
    service = createService(createDocumentClient(dynamoOptions(config)), config.TABLE_NAME);
  }
  return service;
}
