import { getCustomerItem } from '#db/customers.ts';
import type { CustomerItem, ProjectKey, ProjectPartition } from '#db/types.ts';
import { isCustomerId } from '../customers/customer-id.ts';
import { settled } from '../customers/held-plan.ts';
import type { CustomerView } from '../customers/schemas.ts';
import { storedSubscription, toCustomerView } from '../customers/store.ts';
import { echo, NotFoundError, UnauthorizedError } from '../errors.ts';
import { countPublicPaymentCall } from '../payments/rate-limit.ts';
import type { Ports } from '../ports.ts';
import { loadProject } from '../projects/load.ts';
import { loadSharedProject } from '../share/share.ts';
import { type ChangePorts, cancelPlan, changePlan, portalSession, previewChange, resumePlan } from './changes.ts';
import type {
  CancelInput,
  ChangeInput,
  CustomerTokenView,
  PortalInput,
  PreviewInput,
  PreviewView,
  PublicCustomerView,
} from './schemas.ts';
import { mintToken, verifyToken } from './tokens.ts';

/**
 * The two doors to plan changes (lifecycle.md §2): v1, for the owner's backend with its API
 * key, and the public calls a widget makes with a customer token, which reach only the
 * token's customer of the token's project and count toward the public payment rate limits.
 */

export type CallPorts = ChangePorts & Pick<Ports, 'tokenKeys'>;

const customerNotFound = (customerId: string) =>
  new NotFoundError(`Customer "${echo(customerId)}" not found in this project.`);

async function ownersProject(key: ProjectKey, customerId: string): Promise<ProjectPartition> {
  if (!isCustomerId(customerId)) throw customerNotFound(customerId);
  return loadProject(key);
}

export const v1 = {
  preview: async (ports: CallPorts, key: ProjectKey, customerId: string, input: PreviewInput): Promise<PreviewView> =>
    previewChange(ports, await ownersProject(key, customerId), customerId, input, false),
  change: async (ports: CallPorts, key: ProjectKey, customerId: string, input: ChangeInput): Promise<CustomerView> =>
    toCustomerView(await changePlan(ports, await ownersProject(key, customerId), customerId, input, false)),
  cancel: async (ports: CallPorts, key: ProjectKey, customerId: string, input: CancelInput): Promise<CustomerView> =>
    toCustomerView(await cancelPlan(ports, await ownersProject(key, customerId), customerId, input)),
  resume: async (ports: CallPorts, key: ProjectKey, customerId: string): Promise<CustomerView> =>
    toCustomerView(await resumePlan(ports, await ownersProject(key, customerId), customerId)),
  portal: async (ports: CallPorts, key: ProjectKey, customerId: string, { returnUrl }: PortalInput) =>
    portalSession(ports, (await ownersProject(key, customerId)).project, customerId, returnUrl),
  /** A token for a customer the project has: 404 for an unknown one. */
  token: async (ports: CallPorts, key: ProjectKey, customerId: string): Promise<CustomerTokenView> => {
    const { project } = await ownersProject(key, customerId);
    const item = await getCustomerItem(project.projectId, customerId, { consistent: true });
    if (!item) throw customerNotFound(customerId);
    return mintToken(ports.tokenKeys, ports.clock, project.projectId, customerId);
  },
};

/** What a visitor asks with: the page's share id, its Authorization header, its address. */
export interface Visitor {
  shareId: string;
  authorization: string | undefined;
  clientAddress: string;
}

const otherProject = () =>
  new UnauthorizedError('This customer token is not for this pricing page: mint one for its project.');
const gone = () => new UnauthorizedError("This customer token's customer no longer exists: mint a new token.");

/**
 * The token's customer on the visitor's page: 401 for a missing, forged, expired or other
 * project's token, or one whose customer was deleted since; then counted as a public payment call.
 */
async function tokenCustomer(ports: CallPorts, visitor: Visitor) {
  const claims = verifyToken(ports.tokenKeys, ports.clock, visitor.authorization);
  const partition = await loadSharedProject(visitor.shareId);
  if (claims.projectId !== partition.project.projectId) throw otherProject();
  await countPublicPaymentCall(ports.clock, partition.project.projectId, visitor.clientAddress);
  const item = await getCustomerItem(partition.project.projectId, claims.customerId, { consistent: true });
  if (!item) throw gone();
  return { partition, customerId: claims.customerId, item };
}

export function toPublicCustomer(item: CustomerItem): PublicCustomerView {
  const subscription = settled(storedSubscription(item), Date.now());
  return {
    customerId: item.customerId,
    planId: subscription?.planId ?? null,
    planVersion: subscription?.planVersion ?? null,
    pendingPlanId: subscription?.pendingPlanId ?? null,
    status: subscription?.status ?? null,
    billingInterval: subscription?.billingInterval ?? null,
    seats: subscription?.seats ?? 1,
    cancelAtPeriodEnd: subscription?.cancelAtPeriodEnd ?? false,
    currentPeriodEnd: subscription?.currentPeriodEnd ?? null,
  };
}

export const visitorCalls = {
  customer: async (ports: CallPorts, visitor: Visitor): Promise<PublicCustomerView> => {
    const { item } = await tokenCustomer(ports, visitor);
    return toPublicCustomer(item);
  },
  preview: async (ports: CallPorts, visitor: Visitor, input: PreviewInput): Promise<PreviewView> => {
    const { partition, customerId } = await tokenCustomer(ports, visitor);
    return previewChange(ports, partition, customerId, input, true);
  },
  change: async (ports: CallPorts, visitor: Visitor, input: PreviewInput): Promise<PublicCustomerView> => {
    const { partition, customerId } = await tokenCustomer(ports, visitor);
    return toPublicCustomer(await changePlan(ports, partition, customerId, input, true));
  },
  cancel: async (ports: CallPorts, visitor: Visitor): Promise<PublicCustomerView> => {
    const { partition, customerId } = await tokenCustomer(ports, visitor);
    return toPublicCustomer(await cancelPlan(ports, partition, customerId, { atPeriodEnd: true }));
  },
  resume: async (ports: CallPorts, visitor: Visitor): Promise<PublicCustomerView> => {
    const { partition, customerId } = await tokenCustomer(ports, visitor);
    return toPublicCustomer(await resumePlan(ports, partition, customerId));
  },
  portal: async (ports: CallPorts, visitor: Visitor, { returnUrl }: PortalInput): Promise<{ url: string }> => {
    const { partition, customerId } = await tokenCustomer(ports, visitor);
    return portalSession(ports, partition.project, customerId, returnUrl);
  },
};
