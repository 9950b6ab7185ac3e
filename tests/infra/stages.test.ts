import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { functionRoleName, paymentKeyActions } from '../../infra/service-function.ts';
import { StageError, stageSettings } from '../../infra/stages.ts';
import { createTableInput, tableDefinition } from '../../shared/db/table.ts';
import { functionSpecs, type Worker } from '../../shared/function-specs.ts';
import type { Group } from '../../shared/routes.ts';
import {
  actionPatternCovers,
  actionsOf,
  asList,
  type CfnTemplate,
  groups,
  logicalId,
  only,
  type PolicyStatementJson,
  repoRoot,
  resourcesOfType,
  type SynthesizedStage,
  synthStage,
} from '../fixtures/cdk.ts';

/**
 * The data stack, and what differs between a disposable stage (dev) and a protective one
 * (prod): both synthesized once, as `cdk synth -c stage=<stage>` would (bundling skipped:
 * templates are identical but for the functions' asset hashes).
 */
const stages = ['dev', 'prod'] as const;
type StageName = (typeof stages)[number];
const synths = {} as Record<StageName, SynthesizedStage>;

beforeAll(async () => {
  for (const stage of stages) synths[stage] = await synthStage(stage, { bundle: false });
});

afterAll(async () => {
  await Promise.all(stages.map((stage) => synths[stage]?.cleanup()));
});

/** Every operation that uses key material; none may reach the key but through the two function roles. */
const cryptoActions = [
  'kms:Encrypt',
  'kms:Decrypt',
  'kms:ReEncryptFrom',
  'kms:ReEncryptTo',
  'kms:GenerateDataKey',
  'kms:GenerateDataKeyWithoutPlaintext',
  'kms:GenerateDataKeyPair',
  'kms:GenerateDataKeyPairWithoutPlaintext',
  'kms:GenerateMac',
  'kms:VerifyMac',
  'kms:Sign',
  'kms:Verify',
  'kms:DeriveSharedSecret',
];

const keyResource = (stage: StageName) => {
  const synth = synths[stage];
  const key = synth.dataJson.Resources[logicalId(synth.built.data, synth.built.data.paymentKey)];
  expect(key?.Type).toBe('AWS::KMS::Key');
  return key as NonNullable<typeof key>;
};
const tableResource = (stage: StageName) => {
  const synth = synths[stage];
  const table = synth.dataJson.Resources[logicalId(synth.built.data, synth.built.data.table)];
  expect(table?.Type).toBe('AWS::DynamoDB::Table');
  return table as NonNullable<typeof table>;
};
const keyStatements = (stage: StageName) =>
  asList<PolicyStatementJson>(keyResource(stage).Properties?.KeyPolicy?.Statement);
/** The ARN of a function role as the key policy must spell it (the role has no path). */
const roleArn = (stage: StageName, group: Group | Worker) => ({
  'Fn::Join': [
    '',
    ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, `:role/${functionRoleName(stage, group)}`],
  ],
});
const accountRoot = {
  AWS: {
    'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root']],
  },
};

describe.each(stages)(
  'KMS payment key (%s): only the two function roles use it, and only with a project context',
  (stage) => {
    test('key rotation is enabled', () => {
      expect(keyResource(stage).Properties?.EnableKeyRotation).toBe(true);
    });

    test.each([
      ['kms:GenerateDataKey', 'projects'],
      ['kms:Decrypt', 'payments and webhooks and plans and customers and sweeper and webhooksOut'],
    ] as const)(
      '%s is allowed by one statement, conditioned on the %s role ARN(s) and a projectId context',
      (action, roles) => {
        const allowing = keyStatements(stage).filter(
          (statement) =>
            statement.Effect === 'Allow' &&
            actionsOf(statement).some((pattern) => actionPatternCovers(pattern, action)),
        );
        expect(allowing).toHaveLength(1);
        const [statement] = allowing as [PolicyStatementJson];
        expect(actionsOf(statement)).toEqual([action]);
        const arns = (roles.split(' and ') as (Group | Worker)[]).map((group) => roleArn(stage, group));
        expect(statement.Condition?.StringEquals?.['aws:PrincipalArn']).toEqual(arns.length === 1 ? arns[0] : arns);
        expect(statement.Condition?.StringEquals?.['kms:CallerAccount']).toEqual({ Ref: 'AWS::AccountId' });
        const contextOperators = Object.entries(statement.Condition ?? {}).filter(
          ([, keys]) => 'kms:EncryptionContext:projectId' in keys,
        );
        expect(contextOperators.length).toBeGreaterThan(0);
        for (const [operator, keys] of contextOperators) {
          // `Null: true` would demand the context be absent.
          if (operator === 'Null') expect(keys['kms:EncryptionContext:projectId']).toBe('false');
        }
      },
    );

    test('each key operation names exactly the roles of the groups whose spec uses it', () => {
      for (const [use, action] of Object.entries(paymentKeyActions) as [keyof typeof paymentKeyActions, string][]) {
        const users = (Object.keys(functionSpecs) as (Group | Worker)[]).filter(
          (group) => functionSpecs[group].paymentKeys === use,
        );
        const [statement] = keyStatements(stage).filter((s) => actionsOf(s).includes(action));
        const arns = users.map((group) => roleArn(stage, group));
        expect(statement?.Condition?.StringEquals?.['aws:PrincipalArn'], use).toEqual(
          arns.length === 1 ? arns[0] : arns,
        );
      }
    });

    test('no other crypto operation (Encrypt, ReEncrypt*, GenerateDataKey* variants, Sign, Mac…) is allowed to anyone', () => {
      for (const action of cryptoActions.filter((a) => a !== 'kms:GenerateDataKey' && a !== 'kms:Decrypt')) {
        const allowing = keyStatements(stage).filter(
          (statement) =>
            statement.Effect === 'Allow' &&
            actionsOf(statement).some((pattern) => actionPatternCovers(pattern, action)),
        );
        expect(allowing, action).toEqual([]);
      }
    });

    test('the account-root (administration) statement has no crypto action and no kms:* or *', () => {
      const admin = keyStatements(stage).filter(
        (statement) => JSON.stringify(statement.Principal) === JSON.stringify(accountRoot),
      );
      expect(admin).toHaveLength(1);
      const [statement] = admin as [PolicyStatementJson];
      expect(actionsOf(statement).filter((pattern) => pattern === '*' || pattern === 'kms:*')).toEqual([]);
      const covered = cryptoActions.filter((action) =>
        actionsOf(statement).some((pattern) => actionPatternCovers(pattern, action)),
      );
      expect(covered).toEqual([]);
      // A grant would hand Decrypt to a principal the policy does not name.
      expect(actionsOf(statement).filter((pattern) => actionPatternCovers(pattern, 'kms:CreateGrant'))).toEqual([]);
    });

    test('every statement not for the account root is pinned to a principal ARN', () => {
      for (const statement of keyStatements(stage)) {
        if (JSON.stringify(statement.Principal) === JSON.stringify(accountRoot)) continue;
        expect(statement.Condition?.StringEquals?.['aws:PrincipalArn'], statement.Sid).toBeDefined();
      }
    });

    test('the roles the key policy names are the API stack roles, without a path', () => {
      const synth = synths[stage];
      for (const group of ['projects', 'payments'] as const) {
        const role = synth.apiJson.Resources[logicalId(synth.built.api, synth.built.api.functions[group].role)];
        expect(role?.Properties?.RoleName).toBe(functionRoleName(stage, group));
        expect(role?.Properties).not.toHaveProperty('Path');
      }
    });
  },
);

describe.each(stages)('DynamoDB table (%s): the shape tableDefinition describes', (stage) => {
  const { partitionKey, sortKey, globalSecondaryIndexes } = tableDefinition;
  const byName = <T extends { AttributeName?: string; IndexName?: string }>(items: T[]) =>
    [...items].sort((a, b) =>
      String(a.AttributeName ?? a.IndexName).localeCompare(String(b.AttributeName ?? b.IndexName)),
    );
  const keySchema = (hash: string, range: string) => [
    { AttributeName: hash, KeyType: 'HASH' },
    { AttributeName: range, KeyType: 'RANGE' },
  ];

  test('KeySchema is the partition and sort key', () => {
    expect(tableResource(stage).Properties?.KeySchema).toEqual(keySchema(partitionKey, sortKey));
  });

  test('AttributeDefinitions are every key attribute of the table and its indexes, as strings', () => {
    const names = [partitionKey, sortKey, ...globalSecondaryIndexes.flatMap((i) => [i.partitionKey, i.sortKey])];
    expect(byName(tableResource(stage).Properties?.AttributeDefinitions)).toEqual(
      byName(names.map((name) => ({ AttributeName: name, AttributeType: 'S' }))),
    );
  });

  test('the GSIs are the named indexes with their keys and projection ALL', () => {
    expect(byName(tableResource(stage).Properties?.GlobalSecondaryIndexes)).toEqual(
      byName(
        globalSecondaryIndexes.map((index) => ({
          IndexName: index.indexName,
          KeySchema: keySchema(index.partitionKey, index.sortKey),
          Projection: { ProjectionType: 'ALL' },
        })),
      ),
    );
  });

  test('it is the table the local server creates (createTableInput)', () => {
    const local = createTableInput('local');
    const props = tableResource(stage).Properties ?? {};
    expect(props.KeySchema).toEqual(local.KeySchema);
    expect(byName(props.AttributeDefinitions)).toEqual(byName(local.AttributeDefinitions as never[]));
    expect(byName(props.GlobalSecondaryIndexes)).toEqual(byName(local.GlobalSecondaryIndexes as never[]));
    expect(props.BillingMode).toBe(local.BillingMode);
  });

  test('PAY_PER_REQUEST, point-in-time recovery enabled, no fixed table name', () => {
    expect(tableResource(stage).Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      // Kept Idempotency-Key answers expire on the same attribute locally (ensureTable).
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
    expect(tableResource(stage).Properties).not.toHaveProperty('TableName');
  });
});

describe('dev is disposable', () => {
  const stage = 'dev';

  test('table: DeletionPolicy and UpdateReplacePolicy Delete, deletion protection off', () => {
    expect(tableResource(stage)).toMatchObject({ DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
    expect(tableResource(stage).Properties?.DeletionProtectionEnabled).toBe(false);
  });

  test('key and every log group: Delete', () => {
    expect(keyResource(stage)).toMatchObject({ DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
    const logGroups = resourcesOfType(synths[stage].apiJson, 'AWS::Logs::LogGroup');
    expect(logGroups).toHaveLength(groups.length + 1);
    for (const [id, logGroup] of logGroups) {
      expect(logGroup, id).toMatchObject({ DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
    }
  });

  test('no stack is termination-protected', () => {
    expect(synths[stage].built.data.terminationProtection).toBe(false);
    expect(synths[stage].built.api.terminationProtection).toBe(false);
  });

  test('no alarms', () => {
    synths[stage].api.resourceCountIs('AWS::CloudWatch::Alarm', 0);
    synths[stage].data.resourceCountIs('AWS::CloudWatch::Alarm', 0);
  });
});

describe('prod is protective', () => {
  const stage = 'prod';

  test('table: DeletionPolicy and UpdateReplacePolicy Retain, deletion protection on', () => {
    expect(tableResource(stage)).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(tableResource(stage).Properties?.DeletionProtectionEnabled).toBe(true);
  });

  test('the data stack (table and key) is termination-protected, in the cloud assembly too', () => {
    const synth = synths[stage];
    expect(synth.built.data.terminationProtection).toBe(true);
    expect(synth.assembly.getStackArtifact(synth.built.data.artifactId).terminationProtection).toBe(true);
  });

  test('key and every log group: Retain', () => {
    expect(keyResource(stage)).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    const logGroups = resourcesOfType(synths[stage].apiJson, 'AWS::Logs::LogGroup');
    expect(logGroups).toHaveLength(groups.length + 1);
    for (const [id, logGroup] of logGroups) {
      expect(logGroup, id).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    }
  });

  test('alarms: an Errors alarm on each function and a 5xx alarm on the $default stage', () => {
    const synth = synths[stage];
    const alarms = resourcesOfType(synth.apiJson, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties ?? {});
    expect(alarms).toHaveLength(groups.length + 1);
    for (const group of groups) {
      const fnId = logicalId(synth.built.api, synth.built.api.functions[group].fn);
      const mine = alarms.filter(
        (alarm) =>
          alarm.Namespace === 'AWS/Lambda' &&
          alarm.MetricName === 'Errors' &&
          JSON.stringify(alarm.Dimensions) === JSON.stringify([{ Name: 'FunctionName', Value: { Ref: fnId } }]),
      );
      expect(mine, group).toHaveLength(1);
    }
    const apiId = logicalId(synth.built.api, synth.built.api.api);
    expect(
      alarms.filter(
        (alarm) =>
          alarm.Namespace === 'AWS/ApiGateway' &&
          alarm.MetricName === '5xx' &&
          JSON.stringify(alarm.Dimensions) ===
            JSON.stringify([
              { Name: 'ApiId', Value: { Ref: apiId } },
              { Name: 'Stage', Value: '$default' },
            ]),
      ),
    ).toHaveLength(1);
  });
});

describe.each(stages)('API stage and logs (%s) follow stageSettings', (stage) => {
  test('the $default stage auto-deploys, throttled at stageSettings(stage).throttle', () => {
    const { throttle } = stageSettings(stage);
    const stageResources = resourcesOfType(synths[stage].apiJson, 'AWS::ApiGatewayV2::Stage');
    expect(stageResources).toHaveLength(1);
    const [, apiStage] = only(stageResources, 'API stage');
    expect(apiStage.Properties).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: throttle.rateLimit, ThrottlingBurstLimit: throttle.burstLimit },
    });
  });

  test('access logs go, as JSON with the request id, to the access log group', () => {
    const synth = synths[stage];
    const [, apiStage] = only(resourcesOfType(synth.apiJson, 'AWS::ApiGatewayV2::Stage'), 'API stage');
    const settings = apiStage.Properties?.AccessLogSettings;
    expect(settings?.DestinationArn).toMatchObject({ 'Fn::GetAtt': [expect.any(String), 'Arn'] });
    const destination = synth.apiJson.Resources[settings.DestinationArn['Fn::GetAtt'][0]];
    expect(destination?.Type).toBe('AWS::Logs::LogGroup');
    expect(JSON.parse(settings.Format)).toMatchObject({ requestId: '$context.requestId', status: '$context.status' });
  });

  test('every log group keeps its events for stageSettings(stage).logRetention days', () => {
    const { logRetention } = stageSettings(stage);
    const logGroups = resourcesOfType(synths[stage].apiJson, 'AWS::Logs::LogGroup');
    expect(logGroups).toHaveLength(groups.length + 1);
    for (const [id, logGroup] of logGroups) expect(logGroup.Properties?.RetentionInDays, id).toBe(logRetention);
  });
});

describe('stage naming: stages deploy side by side', () => {
  /** Names scoped inside a parent resource, or that name no resource: they cannot collide across stages. */
  const scopedNames: Record<string, string[]> = {
    'AWS::IAM::Policy': ['PolicyName'], // an inline policy of its (stage-named) role
    'AWS::ApiGatewayV2::Stage': ['StageName'], // a stage of its API
    'AWS::CloudWatch::Alarm': ['MetricName'], // the metric watched, not the alarm's name
  };
  /** Every literal physical name a template sets (`*Name` properties) and every export name. */
  const physicalNames = (template: CfnTemplate) => [
    ...Object.entries(template.Resources).flatMap(([id, resource]) =>
      Object.entries(resource.Properties ?? {})
        .filter(([key, value]) => /Name$/.test(key) && typeof value === 'string')
        .filter(([key]) => !scopedNames[resource.Type]?.includes(key))
        .map(([key, value]) => `${resource.Type} ${id}.${key} = ${value}`),
    ),
    ...Object.values(template.Outputs ?? {}).flatMap((output) =>
      output.Export ? [`Export ${output.Export.Name}`] : [],
    ),
  ];
  const namesOf = (stage: StageName) => [
    ...physicalNames(synths[stage].apiJson),
    ...physicalNames(synths[stage].dataJson),
  ];
  const value = (name: string) => name.replace(/^.* = /, '').replace(/^Export /, '');

  test('the two stages produce disjoint stack names, each carrying its stage', () => {
    const stackNames = (stage: StageName) => synths[stage].assembly.stacks.map((stack) => stack.stackName);
    expect(stackNames('dev').sort()).toEqual([
      'Pricing-dev-Api',
      'Pricing-dev-Cdn',
      'Pricing-dev-Data',
      'Pricing-dev-Sweep',
      'Pricing-dev-Webhooks',
    ]);
    expect(stackNames('prod').sort()).toEqual([
      'Pricing-prod-Api',
      'Pricing-prod-Cdn',
      'Pricing-prod-Data',
      'Pricing-prod-Sweep',
      'Pricing-prod-Webhooks',
    ]);
    expect(stackNames('dev').filter((name) => stackNames('prod').includes(name))).toEqual([]);
  });

  test('the roles and the key alias carry the stage', () => {
    for (const stage of stages) {
      const names = namesOf(stage);
      for (const group of groups)
        expect(names).toContainEqual(expect.stringMatching(`RoleName = ${functionRoleName(stage, group)}$`));
      expect(names).toContainEqual(expect.stringMatching(`AliasName = alias/pricing-${stage}-payment-keys$`));
    }
  });

  test('every explicit physical name in either stage contains its stage', () => {
    for (const stage of stages) {
      const token = new RegExp(`(^|[^a-z0-9])${stage}([^a-z0-9]|$)`);
      const unstaged = namesOf(stage).filter((name) => !token.test(value(name)));
      expect(unstaged, `physical names of ${stage} without "${stage}"`).toEqual([]);
    }
  });
});

describe('the stage must be given, valid, on the command line', () => {
  const invalid: unknown[] = [undefined, '', 'Bad_Stage', 'a'.repeat(21), '1dev', 42];

  test.each(invalid.map((stage) => [JSON.stringify(stage) ?? 'undefined', stage]))(
    'stageSettings(%s) throws a StageError',
    (_label, stage) => {
      expect(() => stageSettings(stage)).toThrow(StageError);
    },
  );

  test('every StageError says how to pass the stage: -c stage=<name>', () => {
    const messages = invalid.map((stage) => {
      try {
        stageSettings(stage);
        return `no error for ${String(stage)}`;
      } catch (error) {
        return (error as Error).message;
      }
    });
    expect(messages.filter((message) => !message.includes('-c stage='))).toEqual([]);
  });

  test('valid stages are accepted', () => {
    for (const stage of ['dev', 'prod', 'staging-2', 'a'.repeat(20)]) expect(stageSettings(stage).stage).toBe(stage);
  });

  test('`tsx infra/app.ts` with no stage exits 1 and prints the stage message on stderr', async () => {
    const env = { ...process.env };
    delete env.CDK_CONTEXT_JSON;
    delete env.CDK_OUTDIR;
    let expected = '';
    try {
      stageSettings(undefined);
    } catch (error) {
      expected = (error as Error).message;
    }
    const result = await promisify(execFile)(
      join(repoRoot, 'node_modules/.bin/tsx'),
      [join(repoRoot, 'infra/app.ts')],
      {
        cwd: repoRoot,
        env,
        timeout: 30_000,
      },
    ).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code?: number; stdout: string; stderr: string }) => ({
        code: error.code,
        stdout: error.stdout,
        stderr: error.stderr,
      }),
    );
    expect(result.code).toBe(1);
    expect(expected).toContain('-c stage=');
    expect(result.stderr).toContain(expected);
    expect(result.stdout).toBe('');
  });
});

describe('outputs of the data stack', () => {
  test.each(stages)('%s: TableName is the table', (stage) => {
    const synth = synths[stage];
    synth.data.hasOutput('TableName', { Value: { Ref: logicalId(synth.built.data, synth.built.data.table) } });
  });
});
