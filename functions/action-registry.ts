import type { DefinedGroup } from '#http/action.ts';
import type { Group } from '#shared/routes.ts';
import { customers } from './customers/actions.ts';
import { docs } from './docs/actions.ts';
import { features } from './features/actions.ts';
import { payments } from './payments/actions.ts';
import { plans } from './plans/actions.ts';
import { projects } from './projects/actions.ts';
import { share } from './share/actions.ts';
import { webhooks } from './webhooks/actions.ts';

/** Every group's actions, for what runs them all in one process (the local server, the OpenAPI generator, tests). */
export const groupActions: { [G in Group]: DefinedGroup<G> } = {
  share,
  payments,
  webhooks,
  projects,
  features,
  plans,
  customers,
  docs,
};
