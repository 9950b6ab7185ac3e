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
