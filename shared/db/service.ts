import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Service } from 'electrodb';
import { runtimeConfig } from '#shared/config.ts';
import { createDocumentClient } from './client.ts';
import { ApiKey } from './entities/api-key.ts';
import { Counter } from './entities/counter.ts';
import { Feature } from './entities/feature.ts';
import { Plan } from './entities/plan.ts';
import { PlanFeature } from './entities/plan-feature.ts';
import { Project } from './entities/project.ts';

export const entities = {
  project: Project,
  feature: Feature,
  plan: Plan,
  planFeature: PlanFeature,
  apiKey: ApiKey,
  counter: Counter,
};

/**
 * The entities that live outside any project, so a project delete leaves them alone. Every
 * other entity joins the `projectData` collection (tests/integration/project-sweep.test.ts
 * fails otherwise): that is what reads it with its project and sweeps it on delete.
 */
export const unscopedEntities = ['apiKey', 'counter'] as const satisfies readonly (keyof typeof entities)[];

function createService(client: DynamoDBDocumentClient, table: string) {
  return new Service(entities, { client, table });
}

export type PricingService = ReturnType<typeof createService>;

let service: PricingService | undefined;

/** The one Service, created on first use from the runtime config and reused while warm. */
export function db(): PricingService {
  if (!service) {
    const config = runtimeConfig();
    service = createService(
      createDocumentClient({ endpoint: config.DYNAMODB_ENDPOINT, region: config.AWS_REGION }),
      config.TABLE_NAME,
    );
  }
  return service;
}
