import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SWEEP_MARGIN_MS } from '../../functions/sweeper/worker.ts';
import { tableActionsFor } from '../../infra/service-function.ts';
import { SWEEP_MAX_RECEIVES } from '../../infra/sweep-stack.ts';
import { workerSpecs } from '../../shared/function-specs.ts';
import {
  actionsOf,
  asList,
  type CfnTemplate,
  logicalId,
  only,
  type PolicyStatementJson,
  resolveImports,
  resourcesOfType,
  type SynthesizedStage,
  synthStage,
} from '../fixtures/cdk.ts';

/**
 * The sweep stack of `prod`: the queue a project delete hands its sweep to, its dead-letter
 * queue, and the sweeper function with the least it needs.
 */
let synth: SynthesizedStage;
let sweep: Template;
let sweepJson: CfnTemplate;

beforeAll(async () => {
  synth = await synthStage('prod', { bundle: false });
  sweep = Template.fromStack(synth.built.sweep);
  sweepJson = sweep.toJSON() as CfnTemplate;
}, 120_000);

afterAll(async () => {
  await synth?.cleanup();
});

const stack = () => synth.built.sweep;
const queueId = () => logicalId(stack(), stack().queue);
const deadLettersId = () => logicalId(stack(), stack().deadLetters);
const functionId = () => logicalId(stack(), stack().sweeper.fn);
const roleId = () => logicalId(stack(), stack().sweeper.role);
const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });

/** Every statement of the policies attached to the sweeper's role, imports resolved. */
const sweeperStatements = () =>
  resourcesOfType(sweepJson, 'AWS::IAM::Policy')
    .filter(([, policy]) =>
      asList(policy.Properties?.Roles).some((role) => JSON.stringify(role) === JSON.stringify({ Ref: roleId() })),
    )
    .flatMap(([, policy]) => asList<PolicyStatementJson>(policy.Properties?.PolicyDocument?.Statement))
    .map((statement) => resolveImports(statement, synth.dataJson) as PolicyStatementJson);

describe('queues', () => {
  test('the sweep queue and its dead-letter queue are encrypted (SQS-managed keys)', () => {
    sweep.resourceCountIs('AWS::SQS::Queue', 2);
    for (const [, queue] of resourcesOfType(sweepJson, 'AWS::SQS::Queue')) {
      expect(queue.Properties?.SqsManagedSseEnabled).toBe(true);
    }
  });

  test(`a message that fails ${SWEEP_MAX_RECEIVES} times moves to the dead-letter queue, kept 14 days`, () => {
    const queue = sweepJson.Resources[queueId()];
    expect(queue?.Properties?.RedrivePolicy).toEqual({
      deadLetterTargetArn: arnOf(deadLettersId()),
      maxReceiveCount: SWEEP_MAX_RECEIVES,
    });
    expect(sweepJson.Resources[deadLettersId()]?.Properties?.MessageRetentionPeriod).toBe(14 * 24 * 3600);
  });

  test('the visibility timeout is six times the sweeper timeout (no second delivery while one works)', () => {
    expect(sweepJson.Resources[queueId()]?.Properties?.VisibilityTimeout).toBe(6 * workerSpecs.sweeper.timeoutSeconds);
  });

  test('both queues refuse requests without TLS', () => {
    const policies = resourcesOfType(sweepJson, 'AWS::SQS::QueuePolicy');
    expect(policies).toHaveLength(2);
    for (const [, policy] of policies) {
      const statements = asList<PolicyStatementJson>(policy.Properties?.PolicyDocument?.Statement);
      expect(statements).toContainEqual(
        expect.objectContaining({
          Effect: 'Deny',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      );
    }
  });
});

describe('the sweeper function', () => {
  test('is fed by the sweep queue one message at a time, and by a schedule', () => {
    const [, mapping] = only(resourcesOfType(sweepJson, 'AWS::Lambda::EventSourceMapping'), 'event source mapping');
    expect(mapping.Properties).toMatchObject({
      EventSourceArn: arnOf(queueId()),
      FunctionName: { Ref: functionId() },
      BatchSize: 1,
    });
    const [, rule] = only(resourcesOfType(sweepJson, 'AWS::Events::Rule'), 'schedule');
    expect(rule.Properties?.ScheduleExpression).toBe('rate(15 minutes)');
    expect(asList<{ Arn: unknown }>(rule.Properties?.Targets).map((t) => t.Arn)).toEqual([arnOf(functionId())]);
  });

  test('its timeout leaves room for the margin it stops at, and it knows the queue and the table', () => {
    const fn = sweepJson.Resources[functionId()];
    expect(fn?.Properties?.Timeout).toBe(workerSpecs.sweeper.timeoutSeconds);
    expect(workerSpecs.sweeper.timeoutSeconds * 1000).toBeGreaterThan(2 * SWEEP_MARGIN_MS);
    const variables = fn?.Properties?.Environment?.Variables ?? {};
    expect(variables.SWEEP_QUEUE_URL).toEqual({ Ref: queueId() });
    expect(variables).toHaveProperty('TABLE_NAME');
    // Plan migrations it runs reprice Stripe subscriptions with the project's payment key.
    expect(variables).toHaveProperty('PAYMENT_KMS_KEY_ID');
  });

  test('least privilege: reads and writes on the base table only (migrations write customers), the queue only, Decrypt with the payment key only, its logs only', () => {
    const statements = sweeperStatements();
    const tableArn = { 'Fn::GetAtt': [logicalId(synth.built.data, synth.built.data.table), 'Arn'] };
    const dynamo = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
    expect(dynamo).toHaveLength(1);
    expect(actionsOf(dynamo[0] as PolicyStatementJson).sort()).toEqual(tableActionsFor('readWrite').slice().sort());
    expect(dynamo[0]?.Resource).toEqual(tableArn);
    const sqs = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));
    for (const statement of sqs) expect(statement.Resource).toEqual(arnOf(queueId()));
    expect(sqs.flatMap(actionsOf).sort()).toEqual(
      [
        'sqs:ChangeMessageVisibility',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:ReceiveMessage',
        'sqs:SendMessage',
      ].sort(),
    );
    const allActions = statements.flatMap(actionsOf);
    expect(allActions.filter((a) => !/^(dynamodb|sqs|logs):/.test(a))).toEqual(['kms:Decrypt']);
    expect(allActions.filter((a) => a.includes('*'))).toEqual([]);
  });

  test.each(['projects', 'plans'] as const)(
    'the %s function (project deletes; plan migrations) knows the sweep queue and may only send to it',
    (group) => {
      const fn = synth.built.api.functions[group];
      const role = logicalId(synth.built.api, fn.role);
      const sends = resourcesOfType(synth.apiJson, 'AWS::IAM::Policy')
        .filter(([, p]) => asList(p.Properties?.Roles).some((r) => JSON.stringify(r) === JSON.stringify({ Ref: role })))
        .flatMap(([, p]) => asList<PolicyStatementJson>(p.Properties?.PolicyDocument?.Statement))
        .filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')))
        .map((s) => resolveImports(s, sweepJson) as PolicyStatementJson);
      expect(sends.flatMap(actionsOf)).toEqual(['sqs:SendMessage']);
      expect(sends[0]?.Resource).toEqual(arnOf(queueId()));
      const variables = synth.apiJson.Resources[logicalId(synth.built.api, fn.fn)]?.Properties?.Environment?.Variables;
      expect(resolveImports(variables?.SWEEP_QUEUE_URL, sweepJson)).toEqual({ Ref: queueId() });
    },
  );

  test('a failed invocation fails its one message: the mapping reports no partial batch failures, as the handler returns none', () => {
    const [, mapping] = only(resourcesOfType(sweepJson, 'AWS::Lambda::EventSourceMapping'), 'event source mapping');
    expect(mapping.Properties?.BatchSize).toBe(1);
    expect(mapping.Properties?.FunctionResponseTypes).toBeUndefined();
  });

  test('an alarm watches the dead-letter queue in a protective stage', () => {
    const [, alarm] = only(resourcesOfType(sweepJson, 'AWS::CloudWatch::Alarm'), 'dead-letter alarm');
    expect(alarm.Properties).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1 });
  });
});
