import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fallbackGroup, routes } from '../../functions/routes.ts';
import { routeSettingsFor } from '../../infra/api-stack.ts';
import {
  functionRoleName,
  paymentKeyActions,
  paymentRecordActions,
  paymentRecordsCondition,
  tableActions,
  tableActionsFor,
} from '../../infra/service-function.ts';
import { stageSettings } from '../../infra/stages.ts';
import { tableDefinition } from '../../shared/db/table.ts';
import { groupSpecs } from '../../shared/function-specs.ts';
import { type Group, routeKey } from '../../shared/routes.ts';
import {
  actionsOf,
  asList,
  groups,
  logicalId,
  only,
  type PolicyStatementJson,
  resolveImports,
  resourcesOfType,
  type SynthesizedStage,
  synthStage,
} from '../fixtures/cdk.ts';

/**
 * The API stack of `dev` as `cdk synth -c stage=dev` builds it (bundling skipped: only the
 * functions' asset hashes differ; the bundles themselves are tested in assembly.test.ts).
 */
const stage = 'dev';
let synth: SynthesizedStage;

beforeAll(async () => {
  synth = await synthStage(stage, { bundle: false });
});

afterAll(async () => {
  await synth?.cleanup();
});

/** Groups whose every route is public: nothing they serve authenticates with an API key. */
const publicGroups = groups.filter((group) =>
  routes.every((route) => route.group !== group || route.auth === 'public'),
);
const authenticatedGroups = groups.filter((group) => !publicGroups.includes(group));

const functionLogicalId = (group: Group) => logicalId(synth.built.api, synth.built.api.functions[group].fn);
const functionArn = (group: Group) => ({ 'Fn::GetAtt': [functionLogicalId(group), 'Arn'] });
const tableArn = () => ({ 'Fn::GetAtt': [logicalId(synth.built.data, synth.built.data.table), 'Arn'] });
const keyArn = () => ({ 'Fn::GetAtt': [logicalId(synth.built.data, synth.built.data.paymentKey), 'Arn'] });
/** An API stack value with its cross-stack imports replaced by the data stack's expressions. */
const resolved = (value: unknown) => resolveImports(value, synth.dataJson);

/** Route.Target → `integrations/<Ref>` → Integration.IntegrationUri, checked on the way. */
function integrationUriOf(route: { Properties?: Record<string, any> }): unknown {
  const target = route.Properties?.Target;
  expect(target).toEqual({ 'Fn::Join': ['', ['integrations/', { Ref: expect.any(String) }]] });
  const integrationId: string = target['Fn::Join'][1][1].Ref;
  const integration = synth.apiJson.Resources[integrationId];
  expect(integration?.Type).toBe('AWS::ApiGatewayV2::Integration');
  expect(integration?.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
  return integration?.Properties?.IntegrationUri;
}

describe('routes: API Gateway serves exactly the route table, each route on its group function', () => {
  const routeResources = () => resourcesOfType(synth.apiJson, 'AWS::ApiGatewayV2::Route');
  const nonDefault = () => routeResources().filter(([, route]) => route.Properties?.RouteKey !== '$default');

  test.each(routes.map((route) => [routeKey(route), route.group] as const))(
    '%s is exactly one route, integrated with the %s function',
    (key, group) => {
      const matching = routeResources().filter(([, route]) => route.Properties?.RouteKey === key);
      expect(matching).toHaveLength(1);
      const [, route] = only(matching, `route ${key}`);
      expect(integrationUriOf(route)).toEqual(functionArn(group));
    },
  );

  const getRoutes = routes.filter((route) => route.method === 'GET');

  test.each(getRoutes.map((route) => [route.path, route.group] as const))(
    'HEAD %s is a route of its own, on the same %s integration as its GET (API Gateway sends an unrouted HEAD to $default)',
    (path) => {
      const [, head] = only(
        routeResources().filter(([, route]) => route.Properties?.RouteKey === `HEAD ${path}`),
        `route HEAD ${path}`,
      );
      const [, get] = only(
        routeResources().filter(([, route]) => route.Properties?.RouteKey === `GET ${path}`),
        `route GET ${path}`,
      );
      expect(head.Properties?.Target).toEqual(get.Properties?.Target);
      expect(head.Properties?.AuthorizationType ?? 'NONE').toBe(get.Properties?.AuthorizationType ?? 'NONE');
    },
  );

  test('the non-default routes are the route table and a HEAD per GET, no more (none for other methods)', () => {
    const keys = nonDefault().map(([, route]) => route.Properties?.RouteKey as string);
    const expected = [...routes.map(routeKey), ...getRoutes.map((route) => `HEAD ${route.path}`)];
    expect(keys.sort()).toEqual(expected.sort());
  });

  test(`the $default route (anything else) goes to the fallback group's function (${fallbackGroup})`, () => {
    const defaults = routeResources().filter(([, route]) => route.Properties?.RouteKey === '$default');
    expect(defaults).toHaveLength(1);
    const [, route] = only(defaults, '$default route');
    expect(integrationUriOf(route)).toEqual(functionArn(fallbackGroup));
  });

  test('every route belongs to the one HTTP API', () => {
    const apis = resourcesOfType(synth.apiJson, 'AWS::ApiGatewayV2::Api');
    expect(apis).toHaveLength(1);
    const [apiId] = only(apis, 'HTTP API');
    for (const [, route] of routeResources()) expect(route.Properties?.ApiId).toEqual({ Ref: apiId });
  });

  test('API Gateway may invoke each function, and only from this API', () => {
    const apiId = logicalId(synth.built.api, synth.built.api.api);
    const permissions = resourcesOfType(synth.apiJson, 'AWS::Lambda::Permission');
    expect(permissions).toHaveLength(groups.length);
    for (const group of groups) {
      const mine = permissions.filter(
        ([, p]) => JSON.stringify(p.Properties?.FunctionName) === JSON.stringify(functionArn(group)),
      );
      expect(mine, group).toHaveLength(1);
      const [, permission] = only(mine, `permission for ${group}`);
      expect(permission.Properties).toMatchObject({
        Action: 'lambda:InvokeFunction',
        Principal: 'apigateway.amazonaws.com',
      });
      expect(JSON.stringify(permission.Properties?.SourceArn)).toContain(JSON.stringify({ Ref: apiId }));
    }
  });
});

describe('functions: one per group, Node 22 on arm64, configured by their bindings', () => {
  test('the groups of the route table are the five function groups', () => {
    expect(new Set(routes.map((route) => route.group))).toEqual(new Set(groups));
    expect(Object.keys(synth.built.api.functions).sort()).toEqual([...groups].sort());
  });

  test('the stack holds exactly five Lambda functions, one per group', () => {
    synth.api.resourceCountIs('AWS::Lambda::Function', groups.length);
    const ids = new Set(groups.map(functionLogicalId));
    expect(ids.size).toBe(groups.length);
    for (const id of ids) expect(synth.apiJson.Resources[id]?.Type).toBe('AWS::Lambda::Function');
  });

  test.each(groups)(
    '%s: nodejs22.x, arm64, index.handler, TABLE_NAME; PAYMENT_KMS_KEY_ID only if its spec uses the key',
    (group) => {
      const fn = synth.apiJson.Resources[functionLogicalId(group)];
      expect(fn?.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
      });
      const variables = resolved(fn?.Properties?.Environment?.Variables) as Record<string, unknown>;
      expect(variables.TABLE_NAME).toEqual({ Ref: logicalId(synth.built.data, synth.built.data.table) });
      if (groupSpecs[group].paymentKeys !== 'none') {
        expect(variables.PAYMENT_KMS_KEY_ID).toEqual(keyArn());
      } else {
        expect(variables).not.toHaveProperty('PAYMENT_KMS_KEY_ID');
      }
      // Only the projects function hands out URLs (a project's webhookUrl): the API's own.
      if (group === 'projects') expect(JSON.stringify(variables.PUBLIC_BASE_URL)).toContain('ApiEndpoint');
      else expect(variables).not.toHaveProperty('PUBLIC_BASE_URL');
    },
  );
});

describe('timeouts: each function has the timeout of its spec, inside what API Gateway waits', () => {
  const timeoutOf = (group: Group) => synth.apiJson.Resources[functionLogicalId(group)]?.Properties?.Timeout;

  test.each(groups)('%s: Timeout is groupSpecs[group].timeoutSeconds', (group) => {
    expect(timeoutOf(group)).toBe(groupSpecs[group].timeoutSeconds);
  });

  test('every timeout is under the 30 s API Gateway gives an integration', () => {
    for (const group of groups) expect(timeoutOf(group), group).toBeLessThan(30);
  });

  test('payments and customers (plan changes) outlast their worst Stripe wait (2 × STRIPE_TIMEOUT_MS of 5 s + 1 s backoff); the others take 10 s', () => {
    const waiting = ['payments', 'customers'];
    for (const group of waiting) expect(timeoutOf(group as Group), group).toBeGreaterThan(2 * 5 + 1);
    for (const group of groups.filter((g) => !waiting.includes(g))) expect(timeoutOf(group), group).toBe(10);
  });
});

describe('IAM: each function role holds least privilege', () => {
  const policies = () => resourcesOfType(synth.apiJson, 'AWS::IAM::Policy');
  const allStatements = () =>
    policies().flatMap(([, policy]) => asList<PolicyStatementJson>(policy.Properties?.PolicyDocument?.Statement));
  const roleLogicalId = (group: Group) => logicalId(synth.built.api, synth.built.api.functions[group].role);
  const logGroupArn = (group: Group) => ({
    'Fn::GetAtt': [logicalId(synth.built.api, synth.built.api.functions[group].logGroup), 'Arn'],
  });
  /** Every statement of every policy attached to the group's role, cross-stack imports resolved. */
  const statementsOf = (group: Group) =>
    policies()
      .filter(([, policy]) =>
        asList(policy.Properties?.Roles).some(
          (role) => JSON.stringify(role) === JSON.stringify({ Ref: roleLogicalId(group) }),
        ),
      )
      .flatMap(([, policy]) => asList<PolicyStatementJson>(policy.Properties?.PolicyDocument?.Statement))
      .map((statement) => resolved(statement) as PolicyStatementJson);
  const actionsOfGroup = (group: Group, service: string) =>
    statementsOf(group)
      .flatMap(actionsOf)
      .filter((action) => action.startsWith(`${service}:`));
  test('there are no managed policies and every identity policy is attached to exactly one function role', () => {
    synth.api.resourceCountIs('AWS::IAM::ManagedPolicy', 0);
    const roleRefs = groups.map((group) => JSON.stringify({ Ref: roleLogicalId(group) }));
    expect(policies().length).toBeGreaterThan(0);
    for (const [id, policy] of policies()) {
      const roles = asList(policy.Properties?.Roles).map((role) => JSON.stringify(role));
      expect(roles, id).toHaveLength(1);
      expect(roleRefs, id).toContain(roles[0]);
    }
  });

  test('no statement allows "*", a service wildcard ("dynamodb:*") or any other wildcard action', () => {
    const actions = allStatements().flatMap(actionsOf);
    expect(actions.length).toBeGreaterThan(0);
    expect(actions.filter((action) => action === '*' || action.endsWith(':*'))).toEqual([]);
    expect(actions.filter((action) => action.includes('*') || action.includes('?'))).toEqual([]);
    expect(allStatements().filter((statement) => 'NotAction' in statement || 'NotResource' in statement)).toEqual([]);
  });

  test('no statement allows dynamodb:Scan', () => {
    const actions = allStatements().flatMap(actionsOf);
    expect(actions.filter((action) => action.toLowerCase() === 'dynamodb:scan')).toEqual([]);
  });

  test('no dynamodb or kms statement (indeed no statement) has Resource "*"', () => {
    const onStar = allStatements().filter((statement) => asList(statement.Resource).includes('*'));
    expect(onStar).toEqual([]);
    const dataStatements = allStatements().filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith('dynamodb:') || action.startsWith('kms:')),
    );
    expect(dataStatements.length).toBeGreaterThan(0);
    for (const statement of dataStatements) expect(asList(statement.Resource).length).toBeGreaterThan(0);
  });

  test.each(groups)(
    '%s: its role is named functionRoleName(stage, group), assumed by Lambda, with no other policies',
    (group) => {
      const role = synth.apiJson.Resources[roleLogicalId(group)];
      expect(role?.Type).toBe('AWS::IAM::Role');
      expect(role?.Properties?.RoleName).toBe(functionRoleName(stage, group));
      // No path: the data stack's key policy names the role by `arn:…:role/<name>`.
      expect(role?.Properties).not.toHaveProperty('Path');
      expect(role?.Properties).not.toHaveProperty('ManagedPolicyArns');
      expect(role?.Properties).not.toHaveProperty('Policies');
      expect(role?.Properties?.AssumeRolePolicyDocument?.Statement).toEqual([
        { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } },
      ]);
      const fn = synth.apiJson.Resources[functionLogicalId(group)];
      expect(fn?.Properties?.Role).toEqual({ 'Fn::GetAtt': [roleLogicalId(group), 'Arn'] });
    },
  );

  const indexArn = (index: string) => ({ 'Fn::Join': ['', [tableArn(), `/index/${index}`]] });
  /** A readable name for a DynamoDB resource of the template: `table` or `index/<name>`. */
  const resourceName = (resource: unknown) => {
    if (JSON.stringify(resource) === JSON.stringify(tableArn())) return 'table';
    const index = tableDefinition.globalSecondaryIndexes.find(
      (i) => JSON.stringify(resource) === JSON.stringify(indexArn(i.indexName)),
    );
    return index ? `index/${index.indexName}` : `unknown ${JSON.stringify(resource)}`;
  };
  /** Every (action, resource) pair the group's dynamodb statements allow, as `dynamodb:Query on index/gsi1`. */
  const dynamoGrants = (group: Group, statements = statementsOf(group)) =>
    statements
      .filter((statement) => actionsOf(statement).some((action) => action.startsWith('dynamodb:')))
      .flatMap((statement) =>
        actionsOf(statement).flatMap((action) =>
          asList(statement.Resource).map((resource) => `${action} on ${resourceName(resource)}`),
        ),
      )
      .sort();
  /** What the spec asks for, in the same form. */
  const specGrants = (group: Group) => {
    const { table, indexes, paymentRecords } = groupSpecs[group];
    return [
      ...tableActionsFor(table).map((action) => `${action} on table`),
      ...(paymentRecords === 'none' ? [] : paymentRecordActions.map((action) => `${action} on table`)),
      ...indexes.flatMap((index) => tableActions.index.map((action) => `${action} on index/${index}`)),
    ].sort();
  };
  /** The group's statements without a condition: what it may do to any item. */
  const unconditioned = (group: Group) => statementsOf(group).filter((statement) => !statement.Condition);

  test.each(groups)('%s: its dynamodb grants are exactly what its spec asks for', (group) => {
    expect(dynamoGrants(group)).toEqual(specGrants(group));
  });

  // Hard expectations, read from the code reached from each handler: the spec could be wrong.
  test.each(['share', 'payments'] as const)(
    '%s (public reads by share id): on any item, only Query on index/gsi1, nothing on the table (API key hashes) or gsi2',
    (group) => {
      expect(publicGroups).toContain(group);
      expect(dynamoGrants(group, unconditioned(group))).toEqual(['dynamodb:Query on index/gsi1']);
    },
  );

  test('payments: GetItem, PutItem and UpdateItem on its payment records only (dynamodb:LeadingKeys), share: none', () => {
    const conditioned = (group: Group) => statementsOf(group).filter((statement) => statement.Condition);
    const [records, ...others] = conditioned('payments');
    expect(others).toEqual([]);
    expect(records?.Condition).toEqual(paymentRecordsCondition);
    expect(JSON.stringify(records?.Condition)).toContain('"$pricing#projectId_*"');
    expect(dynamoGrants('payments', records ? [records] : [])).toEqual(
      paymentRecordActions.map((action) => `${action} on table`).sort(),
    );
    expect(conditioned('share')).toEqual([]);
  });

  test('a group whose routes are all public has no unconditioned access to the base table, but the webhooks that store customers', () => {
    expect(publicGroups.length).toBeGreaterThan(0);
    expect(dynamoGrants('webhooks')).toContain('dynamodb:PutItem on table');
    for (const group of publicGroups.filter((g) => g !== 'webhooks')) {
      expect(
        dynamoGrants(group, unconditioned(group)).filter((grant) => grant.endsWith(' on table')),
        group,
      ).toEqual([]);
    }
  });

  test.each(authenticatedGroups)(
    '%s (authenticates API keys): GetItem on the table, where the key is read by its id',
    (group) => {
      expect(dynamoGrants(group)).toContain('dynamodb:GetItem on table');
    },
  );

  test.each(['projects', 'features', 'plans'] as const)(
    '%s (writes): exactly tableActions.read + write on the table',
    (group) => {
      const onTable = dynamoGrants(group).filter((grant) => grant.endsWith(' on table'));
      expect(onTable).toEqual([...tableActions.read, ...tableActions.write].map((a) => `${a} on table`).sort());
    },
  );

  test("gsi2 (owners' projects and API keys) is queried by projects only (the list and the free-slug search); gsi1 by share, payments, webhooks and customers (the customer-token calls) only", () => {
    const queriers = (index: string) =>
      groups.filter((group) => dynamoGrants(group).includes(`dynamodb:Query on index/${index}`));
    expect(queriers('gsi2')).toEqual(['projects']);
    expect(queriers('gsi1')).toEqual(['share', 'payments', 'webhooks', 'customers']);
  });

  test.each(groups)(
    '%s: an index takes only Query, and every dynamodb resource is the table or a named index',
    (group) => {
      const dynamo = statementsOf(group).filter((statement) =>
        actionsOf(statement).some((a) => a.startsWith('dynamodb:')),
      );
      const { table, indexes } = groupSpecs[group];
      // A group that reads nothing (docs) holds no dynamodb statement at all.
      expect(dynamo.length > 0).toBe(table !== 'none' || indexes.length > 0);
      for (const statement of dynamo) {
        expect(statement.Effect).toBe('Allow');
        expect(actionsOf(statement).every((action) => action.startsWith('dynamodb:'))).toBe(true);
      }
      expect(dynamoGrants(group).filter((grant) => grant.includes(' on unknown'))).toEqual([]);
      expect(
        dynamoGrants(group).filter((grant) => grant.includes(' on index/') && !grant.startsWith('dynamodb:Query ')),
      ).toEqual([]);
      expect(JSON.stringify(statementsOf(group))).not.toContain('index/*');
    },
  );

  test.each(groups)("%s: its kms actions are the one its spec's paymentKeys use needs", (group) => {
    const use = groupSpecs[group].paymentKeys;
    expect(actionsOfGroup(group, 'kms')).toEqual(use === 'none' ? [] : [paymentKeyActions[use]]);
  });

  test('kms: only projects may GenerateDataKey; only payments and plans (migrations reprice Stripe) may Decrypt, each on the payment key ARN', () => {
    const kmsStatements = (group: Group) =>
      statementsOf(group).filter((statement) => actionsOf(statement).some((a) => a.startsWith('kms:')));
    expect(actionsOfGroup('projects', 'kms')).toEqual(['kms:GenerateDataKey']);
    expect(actionsOfGroup('payments', 'kms')).toEqual(['kms:Decrypt']);
    expect(actionsOfGroup('plans', 'kms')).toEqual(['kms:Decrypt']);
    for (const group of ['projects', 'payments', 'plans'] as const) {
      const [statement, ...others] = kmsStatements(group);
      expect(others).toEqual([]);
      expect(statement?.Effect).toBe('Allow');
      expect(asList(statement?.Resource)).toEqual([keyArn()]);
    }
    for (const group of ['share', 'features'] as const) {
      expect(actionsOfGroup(group, 'kms'), group).toEqual([]);
    }
  });

  test.each(groups)(
    '%s: beyond the table and the key, only writing its own log group (and sending sweeps, if its spec hands them over)',
    (group) => {
      const other = statementsOf(group).filter((statement) =>
        actionsOf(statement).some((action) => !action.startsWith('dynamodb:') && !action.startsWith('kms:')),
      );
      const handsOverSweeps = (groupSpecs[group].ports as readonly string[]).some(
        (port) => port === 'sweeps' || port === 'migrations',
      );
      expect(other).toEqual([
        { Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Effect: 'Allow', Resource: logGroupArn(group) },
        ...(handsOverSweeps ? [{ Action: 'sqs:SendMessage', Effect: 'Allow', Resource: expect.anything() }] : []),
      ]);
      if (handsOverSweeps) expect(JSON.stringify(other[1]?.Resource)).toContain('SweepQueue');
      const fn = synth.apiJson.Resources[functionLogicalId(group)];
      expect(fn?.Properties?.LoggingConfig?.LogGroup).toEqual({
        Ref: logicalId(synth.built.api, synth.built.api.functions[group].logGroup),
      });
    },
  );
});

describe('throttling: the public routes have their own limits, API v1 keeps the stage default', () => {
  const stageResource = () => only(resourcesOfType(synth.apiJson, 'AWS::ApiGatewayV2::Stage'))[1];

  test('checkout, custom checkout, receipt and the customer-token calls at the payments throttle, share data, widget and demo at the share throttle', () => {
    const settings = stageSettings(stage);
    const routeSettings = stageResource().Properties?.RouteSettings as Record<string, unknown>;
    const payments = { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 };
    const share = { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 };
    expect(routeSettings).toEqual({
      'POST /api/payments/checkout': payments,
      'POST /api/payments/checkout/custom': payments,
      'GET /api/payments/receipt': payments,
      'HEAD /api/payments/receipt': payments,
      'GET /api/share/{shareId}/customer': payments,
      'HEAD /api/share/{shareId}/customer': payments,
      'POST /api/payments/subscription/preview': payments,
      'POST /api/payments/subscription': payments,
      'POST /api/payments/subscription/cancel': payments,
      'POST /api/payments/subscription/resume': payments,
      'POST /api/payments/portal': payments,
      'GET /api/share/{shareId}': share,
      'HEAD /api/share/{shareId}': share,
      'GET /widget.js': share,
      'HEAD /widget.js': share,
      'GET /demo/{shareId}': share,
      'HEAD /demo/{shareId}': share,
    });
    expect(routeSettings).toEqual(routeSettingsFor(settings));
    // Every key is a route of the table (or a GET's HEAD), public, and not a preflight.
    for (const key of Object.keys(routeSettings)) {
      const route = routes.find((r) => routeKey(r) === key.replace(/^HEAD /, 'GET '));
      expect(route?.auth, key).toBe('public');
    }
    // API v1 is not lowered: the stage default applies to it.
    expect(stageResource().Properties?.DefaultRouteSettings).toMatchObject({
      ThrottlingRateLimit: settings.throttle.rateLimit,
      ThrottlingBurstLimit: settings.throttle.burstLimit,
    });
  });

  test('protective stages: payments 50/s (burst 100), share 200/s (burst 400), API v1 500/s (burst 1000)', () => {
    const prod = stageSettings('prod');
    expect(prod.publicThrottle).toEqual({
      payments: { rateLimit: 50, burstLimit: 100 },
      share: { rateLimit: 200, burstLimit: 400 },
    });
    expect(prod.throttle).toEqual({ rateLimit: 500, burstLimit: 1000 });
  });

  test('the stage is created after the routes its settings name', () => {
    const [stageId] = only(resourcesOfType(synth.apiJson, 'AWS::ApiGatewayV2::Stage'));
    const dependsOn = asList(synth.apiJson.Resources[stageId]?.DependsOn);
    const routeIds = resourcesOfType(synth.apiJson, 'AWS::ApiGatewayV2::Route').map(([id]) => id);
    for (const id of routeIds.filter((id) => !id.includes('Default'))) expect(dependsOn).toContain(id);
  });
});

describe('outputs of the API stack', () => {
  test('ApiUrl is the $default stage URL of the HTTP API', () => {
    const apiId = logicalId(synth.built.api, synth.built.api.api);
    synth.api.hasOutput('ApiUrl', {
      Value: { 'Fn::Join': ['', Match.arrayWith(['https://', { Ref: apiId }, '.execute-api.'])] },
    });
  });

  test('Stage is the stage name', () => {
    synth.api.hasOutput('Stage', { Value: stage });
  });
});
