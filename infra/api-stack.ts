import { CfnOutput, Duration, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  type CfnStage,
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { fallbackGroup, findRoute, type Route, type RouteKey, routes } from '../functions/routes.ts';
import { groupSpecs, groupNames as groups } from '../shared/function-specs.ts';
import { CDN_ORIGIN_HEADER } from '../shared/http/client-address.ts';
import { type Group, methodsOf } from '../shared/routes.ts';
import { ServiceFunction } from './service-function.ts';
import type { StageSettings, Throttle } from './stages.ts';

/** Customer token signing keys, the signing one first (a rotation puts a new id in front). */
export const customerTokenKeyIds = ['k1'] as const;

/** The public routes with a throttle of their own, and which of the stage's `publicThrottle` each takes. */
export const publicRouteThrottles: Partial<Record<RouteKey, keyof StageSettings['publicThrottle']>> = {
  'POST /api/payments/checkout': 'payments',
  'POST /api/payments/checkout/custom': 'payments',
  'GET /api/payments/receipt': 'payments',
  'GET /api/share/{shareId}/customer': 'payments',
  'POST /api/payments/subscription/preview': 'payments',
  'POST /api/payments/subscription': 'payments',
  'POST /api/payments/subscription/cancel': 'payments',
  'POST /api/payments/subscription/resume': 'payments',
  'POST /api/payments/portal': 'payments',
  'GET /api/share/{shareId}': 'share',
  'GET /widget.js': 'share',
  'GET /demo/{shareId}': 'share',
};

/**
 * The route keys API Gateway serves for one entry of the route table: its own, and a HEAD
 * beside a GET (shared/routes.ts `methodsOf`), on the same integration.
 */
export const apiRouteKeys = (route: Route): string[] => methodsOf(route).map((method) => `${method} ${route.path}`);

/**
 * CloudFormation's RouteSettings: per route key, its throttle. A GET's HEAD gets the same
 * limits (API Gateway keeps a bucket per route key, so HEAD and GET each have their own).
 */
export const routeSettingsFor = (settings: StageSettings) =>
  Object.fromEntries(
    Object.entries(publicRouteThrottles).flatMap(([key, kind]) => {
      const { rateLimit, burstLimit }: Throttle = settings.publicThrottle[kind];
      const route = findRoute(key) as Route;
      return apiRouteKeys(route).map((k) => [k, { ThrottlingRateLimit: rateLimit, ThrottlingBurstLimit: burstLimit }]);
    }),
  );

export interface ApiStackProps extends StackProps {
  settings: StageSettings;
  table: ITable;
  paymentKey: IKey;
  /** Where the projects function hands deleted projects' sweeps (infra/sweep-stack.ts). */
  sweepQueue: IQueue;
  projectRoot: string;
  bundleAwsSdk: boolean;
}

const pascal = (group: Group) => group.charAt(0).toUpperCase() + group.slice(1);
/** `PUT /api/v1/projects/{slug}` → `PutApiV1ProjectsSlug`: stable construct ids, one per route. */
const routeId = (key: string) =>
  key
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1).toLowerCase())
    .join('');

/** cdk-nag's APIG4 (no authorizer), acknowledged with the reason of the route's kind. */
function acknowledgePublicOrKeyed(httpRoute: HttpRoute, route: Route): void {
  Validations.of(httpRoute).acknowledge({
    id: 'AwsSolutions-APIG4',
    reason:
      route.auth === 'public'
        ? 'A public route by design: the pricing widget calls it from any site without credentials.'
        : 'API v1 authenticates in the function: a Bearer API key checked against its stored SHA-256 hash (401), then its permission (403); an API Gateway authorizer would repeat that check in a second function.',
  });
}

/**
 * One HTTP API whose routes are the route table's (functions/routes.ts, with a HEAD beside
 * each GET), each pointing at its group's function, and whose `$default` route (anything
 * else) goes to the fallback group, which answers 404 or 405. CORS is not configured here:
 * the functions answer the public routes' OPTIONS (they are in the route table) and add the
 * headers to public answers only, which API Gateway's CORS setting, applied to every route,
 * could not do.
 */
export class ApiStack extends Stack {
  readonly api: HttpApi;
  readonly functions: Record<Group, ServiceFunction>;
  /** What the CDN sends in CDN_ORIGIN_HEADER (infra/cdn-stack.ts), and the payments function compares. */
  readonly cdnOriginSecret: Secret;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const { settings } = props;

    this.functions = Object.fromEntries(
      groups.map((group) => {
        const fn = new ServiceFunction(this, `${pascal(group)}Function`, { ...props, group });
        // Grants and environment from the group's spec (shared/function-specs.ts), nothing else.
        const { paymentKeys, ports } = groupSpecs[group];
        if (paymentKeys !== 'none') fn.bindPaymentKeys(props.paymentKey, paymentKeys);
        if ((ports as readonly string[]).some((port) => port === 'sweeps' || port === 'migrations'))
          fn.bindSweepQueue(props.sweepQueue);
        return [group, fn];
      }),
    ) as Record<Group, ServiceFunction>;

    // One Lambda permission per function rather than one per route.
    const integrations = Object.fromEntries(
      groups.map((group) => [
        group,
        new HttpLambdaIntegration(`${pascal(group)}Integration`, this.functions[group].fn, {
          scopePermissionToRoute: false,
        }),
      ]),
    ) as Record<Group, HttpLambdaIntegration>;

    this.api = new HttpApi(this, 'Api', {
      apiName: `pricing-${settings.stage}`,
      description: `Pricing plan service (stage ${settings.stage})`,
      createDefaultStage: false,
      defaultIntegration: integrations[fallbackGroup],
    });
    const httpRoutes: HttpRoute[] = [];
    for (const route of routes) {
      // A GET's HEAD twin on the same integration: without it API Gateway sends a HEAD to
      // $default (a 405), and CloudFront forwards a viewer's HEAD that misses its cache.
      for (const method of methodsOf(route)) {
        const httpRoute = new HttpRoute(this, `Route${routeId(`${method} ${route.path}`)}`, {
          httpApi: this.api,
          routeKey: HttpRouteKey.with(route.path, HttpMethod[method as keyof typeof HttpMethod]),
          integration: integrations[route.group],
        });
        httpRoutes.push(httpRoute);
        acknowledgePublicOrKeyed(httpRoute, route);
      }
    }
    const defaultRoute = this.api.node.tryFindChild('DefaultRoute');
    if (defaultRoute) {
      Validations.of(defaultRoute).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason: 'The $default route only answers 404 or 405 for paths outside the route table; it reads nothing.',
      });
    }

    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: settings.logRetention,
      removalPolicy: settings.removalPolicy,
    });
    const stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: settings.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            method: '$context.httpMethod',
            path: '$context.path',
            routeKey: '$context.routeKey',
            status: '$context.status',
            responseLength: '$context.responseLength',
            latencyMs: '$context.responseLatency',
            integrationLatencyMs: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
          }),
        ),
      },
    });

    // Route-level throttling for the public routes (HttpStage has no property for it).
    // CloudFormation refuses settings for a route key that does not exist yet: routes first.
    (stage.node.defaultChild as CfnStage).addPropertyOverride('RouteSettings', routeSettingsFor(settings));
    for (const httpRoute of httpRoutes) stage.node.addDependency(httpRoute);

    if (settings.alarms) this.addAlarms(stage);

    // Public payment calls count per visitor address: through the CDN, read from
    // X-Forwarded-For only on requests that carry this secret (shared/http/client-address.ts).
    this.cdnOriginSecret = new Secret(this, 'CdnOriginSecret', {
      description: `Pricing ${settings.stage}: the ${CDN_ORIGIN_HEADER} header CloudFront sends the API`,
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
      removalPolicy: settings.removalPolicy,
    });
    // The customers function serves the customer-token calls, which count per address too.
    for (const group of ['payments', 'customers'] as const) {
      this.functions[group].fn.addEnvironment('CDN_ORIGIN_SECRET', this.cdnOriginSecret.secretValue.unsafeUnwrap());
    }

    // Customer tokens are signed with a per-stage secret that only the customers function
    // holds (shared/secrets/token-keys.ts); its key id names it in every token, so a rotation
    // adds a secret with a new id first and drops the old one an hour later.
    const tokenKeys = customerTokenKeyIds.map((keyId) => {
      const secret = new Secret(this, `CustomerTokenKey${keyId.toUpperCase()}`, {
        description: `Pricing ${settings.stage}: customer token signing key ${keyId}`,
        generateSecretString: { passwordLength: 64, excludePunctuation: true },
        removalPolicy: settings.removalPolicy,
      });
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          'Rotated by adding a key id (customerTokenKeyIds) and deploying, then dropping the old one after the tokens’ hour: a rotation Lambda could not keep both verifying.',
      });
      return `${keyId}:${secret.secretValue.unsafeUnwrap()}`;
    });
    this.functions.customers.fn.addEnvironment('CUSTOMER_TOKEN_KEYS', tokenKeys.join(','));
    Validations.of(this.cdnOriginSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Not a credential: it only tells CloudFront’s requests from direct ones, for rate limits. Rotating it means redeploying the CDN and the API together, which a rotation Lambda cannot do.',
    });

    // A project's webhookUrl (what its owner pastes into Stripe) starts with the API's own URL.
    // The $default stage serves at the API endpoint's root. (Fronted by a CDN, set it to that.)
    this.functions.projects.fn.addEnvironment('PUBLIC_BASE_URL', this.api.apiEndpoint);
    new CfnOutput(this, 'ApiUrl', { value: stage.url, description: 'Base URL of the API' });
    new CfnOutput(this, 'Stage', { value: settings.stage });
  }

  /** Alarms without actions: they show in the console; wire them to a topic per account. */
  private addAlarms(stage: HttpStage): void {
    for (const group of groups) {
      const { fn } = this.functions[group];
      new Alarm(this, `${pascal(group)}Errors`, {
        alarmDescription: `The ${group} function threw or timed out (a 500 or a 502 from API Gateway)`,
        metric: fn.metricErrors({ period: Duration.minutes(5) }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    }
    new Alarm(this, 'Api5xx', {
      alarmDescription: 'The API answered 5xx (payment provider failures are 502s)',
      metric: stage.metricServerError({ period: Duration.minutes(5) }),
      threshold: 5,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
}
