import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DELIVERY_CONCURRENCY, DELIVERY_MAX_RECEIVES } from '../../infra/webhooks-stack.ts';
import { ENDPOINT_CONCURRENCY, SLOT_LEASE_MS } from '../../shared/domain/webhooks-out/delivery.ts';
import { type CfnTemplate, logicalId, resourcesOfType, type SynthesizedStage, synthStage } from '../fixtures/cdk.ts';

/** The webhooks stack of `prod`: stream → function → queue (with its dead letters) → function. */
let synth: SynthesizedStage;
let hooks: Template;
let json: CfnTemplate;

beforeAll(async () => {
  synth = await synthStage('prod', { bundle: false });
  hooks = Template.fromStack(synth.built.webhooks);
  json = hooks.toJSON() as CfnTemplate;
}, 120_000);

afterAll(async () => {
  await synth?.cleanup();
});

const stack = () => synth.built.webhooks;

describe('webhooks out', () => {
  test("the table's stream feeds the function, filtered to new outbox items, failures to the dead letters", () => {
    hooks.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: Match.anyValue(),
      StartingPosition: 'TRIM_HORIZON',
      BisectBatchOnFunctionError: true,
      FilterCriteria: {
        Filters: [
          {
            Pattern: JSON.stringify({
              eventName: ['INSERT'],
              dynamodb: { NewImage: { __edb_e__: { S: ['webhookEvent'] } } },
            }),
          },
        ],
      },
      DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
    });
  });

  test('the delivery queue: retries wait on it, bounded concurrency, a dead-letter queue and its alarm', () => {
    const queueId = logicalId(stack(), stack().queue);
    const deadId = logicalId(stack(), stack().deadLetters);
    hooks.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: DELIVERY_CONCURRENCY },
    });
    hooks.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [deadId, 'Arn'] }, maxReceiveCount: DELIVERY_MAX_RECEIVES },
      MessageRetentionPeriod: 4 * 24 * 3600,
    });
    for (const [, queue] of resourcesOfType(json, 'AWS::SQS::Queue')) {
      expect(queue.Properties?.SqsManagedSseEnabled).toBe(true);
    }
    hooks.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deadId, 'QueueName'] } }],
      Threshold: 1,
    });
  });

  test('least privilege: sends to its own queue, reads the stream, no SQS or KMS wildcard', () => {
    const statements = resourcesOfType(json, 'AWS::IAM::Policy').flatMap(
      ([, policy]) =>
        (policy.Properties?.PolicyDocument?.Statement ?? []) as { Action: string | string[]; Resource: unknown }[],
    );
    const actions = statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    expect(actions).toEqual(expect.arrayContaining(['sqs:SendMessage', 'dynamodb:GetRecords', 'kms:Decrypt']));
    expect(actions).not.toContain('sqs:*');
    expect(actions).not.toContain('kms:*');
    expect(actions).not.toContain('dynamodb:*');
  });

  test('per endpoint: fewer slots than workers, each lease outlasting the function that holds it', () => {
    const fnId = logicalId(stack(), stack().worker.fn);
    const timeout = json.Resources[fnId]?.Properties?.Timeout as number;
    expect(timeout * 1000).toBeLessThan(SLOT_LEASE_MS);
    expect(ENDPOINT_CONCURRENCY).toBeLessThan(DELIVERY_CONCURRENCY);
    // A delivery whose endpoint is busy is sent again with a delay: the queue's visibility
    // timeout covers the function's run, so no message comes back while it is handled.
    hooks.hasResourceProperties('AWS::SQS::Queue', { VisibilityTimeout: Match.anyValue() });
    const queue = json.Resources[logicalId(stack(), stack().queue)]?.Properties as { VisibilityTimeout: number };
    expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(timeout);
  });
});

describe('wake-ups of changes that take effect later', () => {
  const statements = () =>
    resourcesOfType(json, 'AWS::IAM::Policy').flatMap(
      ([, policy]) =>
        (policy.Properties?.PolicyDocument?.Statement ?? []) as {
          Action: string | string[];
          Resource: unknown;
          Condition?: unknown;
        }[],
    );
  const withAction = (action: string) =>
    statements().filter((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]).includes(action));

  test("one-time schedules in the stage's own group, onto the delivery queue, as a role that may only send to it", () => {
    const group = stack().wakeUps.scheduleGroupName;
    const roleId = logicalId(stack(), stack().schedulerRole);
    const queueId = logicalId(stack(), stack().queue);
    hooks.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
    hooks.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: group });
    hooks.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [
          Match.objectLike({
            Principal: { Service: 'scheduler.amazonaws.com' },
            Condition: { StringEquals: { 'aws:SourceAccount': Match.anyValue() } },
          }),
        ],
      },
    });
    const roleStatements = resourcesOfType(json, 'AWS::IAM::Policy')
      .filter(([, policy]) =>
        JSON.stringify((policy.Properties as { Roles?: unknown }).Roles ?? []).includes(`"${roleId}"`),
      )
      .flatMap(([, policy]) => policy.Properties?.PolicyDocument?.Statement ?? []) as {
      Action: string | string[];
      Resource: unknown;
    }[];
    const deadId = logicalId(stack(), stack().deadLetters);
    expect(roleStatements).toEqual([
      expect.objectContaining({
        Action: 'sqs:SendMessage',
        Resource: [{ 'Fn::GetAtt': [queueId, 'Arn'] }, { 'Fn::GetAtt': [deadId, 'Arn'] }],
      }),
    ]);
    const fnId = logicalId(stack(), stack().worker.fn);
    const props = json.Resources[fnId]?.Properties as { Environment: { Variables: Record<string, unknown> } };
    const env = props.Environment.Variables;
    expect(env.WEBHOOK_QUEUE_ARN).toEqual({ 'Fn::GetAtt': [queueId, 'Arn'] });
    expect(env.WEBHOOK_DEAD_LETTER_ARN).toEqual({ 'Fn::GetAtt': [deadId, 'Arn'] });
    expect(env.WEBHOOK_SCHEDULER_ROLE_ARN).toEqual({ 'Fn::GetAtt': [roleId, 'Arn'] });
    expect(env.WEBHOOK_SCHEDULE_GROUP).toBe(group);
  });

  test('the worker creates schedules in that group only, and passes only that role, only to the scheduler', () => {
    const roleId = logicalId(stack(), stack().schedulerRole);
    const create = withAction('scheduler:CreateSchedule');
    expect(create).toHaveLength(1);
    expect(create[0]?.Action).toBe('scheduler:CreateSchedule');
    const resource = JSON.stringify(create[0]?.Resource);
    expect(resource).toContain(':schedule/');
    expect(resource).toContain(`:schedule/${stack().wakeUps.scheduleGroupName}/*`);
    const pass = withAction('iam:PassRole');
    expect(pass).toEqual([
      expect.objectContaining({
        Action: 'iam:PassRole',
        Resource: { 'Fn::GetAtt': [roleId, 'Arn'] },
        Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    ]);
    const actions = statements().flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    expect(actions.filter((a) => a.startsWith('scheduler:'))).toEqual(['scheduler:CreateSchedule']);
  });
});
