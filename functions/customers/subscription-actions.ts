import { CustomerView } from '#domain/customers/schemas.ts';
import { type CallPorts, type Visitor, v1, visitorCalls } from '#domain/subscriptions/calls.ts';
import {
  CancelBody,
  ChangeBody,
  CustomerTokenView,
  PortalBody,
  PortalView,
  PreviewBody,
  PreviewView,
  PublicChangeBody,
  PublicCustomerView,
  PublicPortalBody,
  PublicPreviewBody,
  PublicShareBody,
} from '#domain/subscriptions/schemas.ts';
import { routesIn } from '#http/action.ts';
import { preflight } from '#http/preflight.ts';
import { ok, privately } from '#http/responses.ts';
import { customersRoutes } from './routes.ts';

const route = routesIn(customersRoutes);

const stripeErrors = ['conflict', 'payments_not_configured', 'payment_provider_error'] as const;
const publicErrors = ['not_found', 'unauthorized', 'rate_limited', ...stripeErrors] as const;
const visitorOf = (shareId: string, headers: Record<string, string | undefined>, clientAddress: string): Visitor => ({
  shareId,
  authorization: headers.authorization,
  clientAddress,
});
/** A widget's POST with its customer token. */
const tokenPreflight = (operationId: string) => preflight(operationId, ['POST'], ['Content-Type', 'Authorization']);

interface TokenHolderRequest<I> {
  body: { shareId: string } & I;
  headers: Record<string, string | undefined>;
  ports: CallPorts;
  clientAddress: string;
}

/** The run of a widget's call for its token's customer: the body names the share, the rest is the call's input. */
const forTokenHolder =
  <I>(call: (ports: CallPorts, visitor: Visitor, input: I) => Promise<unknown>) =>
  async ({ body, headers, ports, clientAddress }: TokenHolderRequest<I>) => {
    const { shareId, ...input } = body;
    return privately(await call(ports, visitorOf(shareId, headers, clientAddress), input as I));
  };
const changeDescription =
  "Stripe-sourced subscriptions change at Stripe through the project's key (the item's price and metadata, prorated as `at` and `prorate` say), manual ones here; the answer already shows the change, and the webhook that follows changes nothing more. Defaults: `now` with prorations when the new monthly price is higher, else at period end (the customer keeps its plan and shows `pendingPlanId` until then). A free target cancels the paid subscription at period end. 409 without a live subscription, for the plan it already has, or while another change of the customer runs.";

/** Plan changes after the sale (lifecycle.md §2): v1 for the owner's backend, public with a customer token. */
export const subscriptionActions = [
  route('POST /api/v1/projects/{slug}/customers/{customerId}/subscription/preview', {
    body: PreviewBody,
    doc: {
      operationId: 'previewSubscriptionChange',
      summary: 'What a plan change would cost now (Stripe’s invoice preview), changing nothing',
      description:
        'Follows the change’s defaults: a change at period end owes 0 now; a manual subscription owes 0. Amounts in major units.',
      responses: { 200: PreviewView },
      errors: stripeErrors,
    },
    run: async ({ project, path, body, ports }) => ok(await v1.preview(ports, project, path.customerId, body)),
  }),
  route('POST /api/v1/projects/{slug}/customers/{customerId}/subscription', {
    body: ChangeBody,
    doc: {
      operationId: 'changeSubscription',
      summary: "Change a customer's plan, seats or billing interval",
      description: changeDescription,
      responses: { 200: CustomerView },
      errors: stripeErrors,
    },
    run: async ({ project, path, body, ports }) => ok(await v1.change(ports, project, path.customerId, body)),
  }),
  route('POST /api/v1/projects/{slug}/customers/{customerId}/subscription/cancel', {
    body: CancelBody,
    optionalBody: true,
    doc: {
      operationId: 'cancelSubscription',
      summary: 'Cancel at period end (the default) or now',
      responses: { 200: CustomerView },
      errors: stripeErrors,
    },
    run: async ({ project, path, body, ports }) => ok(await v1.cancel(ports, project, path.customerId, body)),
  }),
  route('POST /api/v1/projects/{slug}/customers/{customerId}/subscription/resume', {
    doc: {
      operationId: 'resumeSubscription',
      summary: 'Take back a cancel at period end (409 when none is set)',
      responses: { 200: CustomerView },
      errors: stripeErrors,
    },
    run: async ({ project, path, ports }) => ok(await v1.resume(ports, project, path.customerId)),
  }),
  route('POST /api/v1/projects/{slug}/customers/{customerId}/portal', {
    body: PortalBody,
    optionalBody: true,
    doc: {
      operationId: 'createPortalSession',
      summary: "A Stripe billing portal session for the customer's Stripe customer",
      responses: { 200: PortalView },
      errors: stripeErrors,
    },
    run: async ({ project, path, body, ports }) => privately(await v1.portal(ports, project, path.customerId, body)),
  }),
  route('POST /api/v1/projects/{slug}/customers/{customerId}/token', {
    doc: {
      operationId: 'createCustomerToken',
      summary: 'A customer token for the widget: this customer of this project, for one hour',
      description:
        'Give it to the page that embeds the widget (`customer-token`). It is refused on v1, and by every other project and customer.',
      responses: { 200: CustomerTokenView },
    },
    run: async ({ project, path, ports }) => privately(await v1.token(ports, project, path.customerId)),
  }),
  route('GET /api/share/{shareId}/customer', {
    doc: {
      operationId: 'getTokenCustomer',
      summary: "The customer token's customer and its subscription (Authorization: Bearer <customer token>)",
      responses: { 200: PublicCustomerView },
      errors: ['not_found', 'unauthorized', 'rate_limited'],
    },
    run: async ({ path, headers, ports, clientAddress }) =>
      privately(await visitorCalls.customer(ports, visitorOf(path.shareId, headers, clientAddress))),
  }),
  route('POST /api/payments/subscription/preview', {
    body: PublicPreviewBody,
    doc: {
      operationId: 'previewTokenCustomerChange',
      summary: "The preview of a plan change of the customer token's customer",
      responses: { 200: PreviewView },
      errors: publicErrors,
    },
    run: forTokenHolder(visitorCalls.preview),
  }),
  route('POST /api/payments/subscription', {
    body: PublicChangeBody,
    doc: {
      operationId: 'changeTokenCustomerPlan',
      summary: "Change the plan of the customer token's customer, with the v1 change's defaults",
      responses: { 200: PublicCustomerView },
      errors: publicErrors,
    },
    run: forTokenHolder(visitorCalls.change),
  }),
  route('POST /api/payments/subscription/cancel', {
    body: PublicShareBody,
    doc: {
      operationId: 'cancelTokenCustomerPlan',
      summary: "Cancel the customer token's customer's subscription at period end",
      responses: { 200: PublicCustomerView },
      errors: publicErrors,
    },
    run: forTokenHolder(visitorCalls.cancel),
  }),
  route('POST /api/payments/subscription/resume', {
    body: PublicShareBody,
    doc: {
      operationId: 'resumeTokenCustomerPlan',
      summary: "Take back the customer token's customer's cancel at period end",
      responses: { 200: PublicCustomerView },
      errors: publicErrors,
    },
    run: forTokenHolder(visitorCalls.resume),
  }),
  route('POST /api/payments/portal', {
    body: PublicPortalBody,
    doc: {
      operationId: 'createTokenCustomerPortalSession',
      summary: "A Stripe billing portal session for the customer token's customer",
      responses: { 200: PortalView },
      errors: publicErrors,
    },
    run: forTokenHolder(visitorCalls.portal),
  }),
  // CORS preflights: the widget calls these from its customers' origins, with the token.
  route('OPTIONS /api/share/{shareId}/customer', preflight('tokenCustomerPreflight', ['GET'], ['Authorization'])),
  route('OPTIONS /api/payments/subscription/preview', tokenPreflight('subscriptionPreviewPreflight')),
  route('OPTIONS /api/payments/subscription', tokenPreflight('subscriptionChangePreflight')),
  route('OPTIONS /api/payments/subscription/cancel', tokenPreflight('subscriptionCancelPreflight')),
  route('OPTIONS /api/payments/subscription/resume', tokenPreflight('subscriptionResumePreflight')),
  route('OPTIONS /api/payments/portal', tokenPreflight('portalPreflight')),
];
