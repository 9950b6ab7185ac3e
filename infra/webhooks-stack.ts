import { ArnFormat, Duration, Stack, type StackProps, Token, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { ENDPOINT_CONCURRENCY, MAX_ATTEMPTS, SLOT_LEASE_MS } from '../shared/domain/webhooks-out/delivery.ts';
import { workerSpecs } from '../shared/function-specs.ts';
import { ServiceFunction } from './service-function.ts';
import type { StageSettings } from './stages.ts';

export interface WebhooksStackProps extends StackProps {
  settings: StageSettings;
  table: ITable;
  paymentKey: IKey;
  projectRoot: string;
  bundleAwsSdk: boolean;
}

/**
 * Receives of one delivery message before it moves to the dead-letter queue: each attempt is
 * one receive, and a few more allow for attempts that failed on our side (DynamoDB busy).
 */
export const DELIVERY_MAX_RECEIVES = MAX_ATTEMPTS + 6;
/**
 * At most this many deliveries run at once, across all endpoints; one endpoint holds at most
 * ENDPOINT_CONCURRENCY of them (its delivery slots, shared/domain/webhooks-out/delivery.ts),
 * so a hanging receiver never takes the workers the other endpoints need.
 */
export const DELIVERY_CONCURRENCY = 10;

/**
 * Webhooks out on AWS's own machinery (lifecycle.md §4): the table's stream, filtered to new
 * outbox items, invokes the webhooksOut function, which writes each event's deliveries and
 * queues them; the queue invokes it again per delivery, and a failed attempt waits on the
 * queue (its visibility timeout) for the next. Stream records that keep failing and
 * deliveries received too often go to dead-letter queues, alarmed in protective stages.
 * A change that takes effect later (a manual subscription's plan at its period end) is a
 * wake-up: an EventBridge Scheduler one-time schedule, in the stage's own group, that puts
 * its message on the same queue at its time, as a role that may only send to that queue.
 */
export class WebhooksStack extends Stack {
  readonly queue: Queue;
  readonly deadLetters: Queue;
  readonly worker: ServiceFunction;
  readonly wakeUps: ScheduleGroup;
  readonly schedulerRole: Role;

  constructor(scope: Construct, id: string, props: WebhooksStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const spec = workerSpecs.webhooksOut;
    // A slot's lease must outlast any attempt that holds it: the function's timeout bounds one.
    if (spec.timeoutSeconds * 1000 >= SLOT_LEASE_MS || ENDPOINT_CONCURRENCY >= DELIVERY_CONCURRENCY) {
      throw new Error(
        'webhooksOut: the delivery slot lease must outlast the function, and an endpoint hold fewer slots than the workers',
      );
    }
    const queueDefaults = {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: settings.removalPolicy,
    };
    this.deadLetters = new Queue(this, 'DeliveryDeadLetters', { ...queueDefaults, retentionPeriod: Duration.days(14) });
    this.queue = new Queue(this, 'DeliveryQueue', {
      ...queueDefaults,
      // The retry schedule spans a little over 24 h; a message outlives it with room to spare.
      retentionPeriod: Duration.days(4),
      visibilityTimeout: Duration.seconds(6 * spec.timeoutSeconds),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: DELIVERY_MAX_RECEIVES },
    });

    this.worker = new ServiceFunction(this, 'WebhooksOutFunction', { ...props, group: 'webhooksOut' });
    this.worker.bindPaymentKeys(props.paymentKey, spec.paymentKeys);
    this.worker.fn.addEnvironment('WEBHOOK_QUEUE_URL', this.queue.queueUrl);
    this.queue.grantSendMessages(this.worker.fn);

    this.wakeUps = new ScheduleGroup(this, 'WakeUps', { removalPolicy: settings.removalPolicy });
    this.schedulerRole = new Role(this, 'WakeUpRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': this.account } },
      }),
      description: "EventBridge Scheduler puts the webhooks' wake-ups on the delivery queue",
    });
    this.schedulerRole.addToPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['sqs:SendMessage'],
        // The queue, and its dead letters for a wake-up it could not put there.
        resources: [this.queue.queueArn, this.deadLetters.queueArn],
      }),
    );
    // Creates one-time schedules in its group only (no update, read or delete: each deletes
    // itself once it has run), and hands them only the role above.
    this.worker
      .allow(
        ['scheduler:CreateSchedule'],
        [
          this.formatArn({
            service: 'scheduler',
            resource: 'schedule',
            resourceName: `${this.wakeUps.scheduleGroupName}/*`,
            arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
          }),
        ],
      )
      .allow(['iam:PassRole'], [this.schedulerRole.roleArn], {
        StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' },
      });
    // cdk-nag names the resource as synthesized: a stage's region may be set, its account not.
    const region = Token.isUnresolved(this.region) ? '<AWS::Region>' : this.region;
    Validations.of(this.worker.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:${region}:<AWS::AccountId>:schedule/${this.wakeUps.scheduleGroupName}/*]`,
      reason:
        "A wake-up's schedule is named when the change it wakes is written: the grant covers the schedules of the stage's own group, and CreateSchedule only.",
    });
    this.worker.fn.addEnvironment('WEBHOOK_QUEUE_ARN', this.queue.queueArn);
    this.worker.fn.addEnvironment('WEBHOOK_DEAD_LETTER_ARN', this.deadLetters.queueArn);
    this.worker.fn.addEnvironment('WEBHOOK_SCHEDULE_GROUP', this.wakeUps.scheduleGroupName);
    this.worker.fn.addEnvironment('WEBHOOK_SCHEDULER_ROLE_ARN', this.schedulerRole.roleArn);
    this.worker.fn.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 10,
        bisectBatchOnError: true,
        retryAttempts: 20,
        onFailure: new SqsDlq(this.deadLetters),
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('INSERT'),
            dynamodb: { NewImage: { __edb_e__: { S: FilterRule.isEqual('webhookEvent') } } },
          }),
        ],
      }),
    );
    Validations.of(this.worker.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        "dynamodb:ListStreams, granted by the stream's event source, takes no resource: IAM accepts only * for it. Every other grant names the table, its stream, the queue, the key, the wake-up role or the wake-ups' schedule group.",
    });
    // Consuming grants (ReceiveMessage, DeleteMessage, ChangeMessageVisibility) come with the source.
    this.worker.fn.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: 5,
        reportBatchItemFailures: true,
        maxConcurrency: DELIVERY_CONCURRENCY,
      }),
    );

    if (settings.alarms) {
      new Alarm(this, 'DeliveryDeadLettersAlarm', {
        alarmDescription:
          'Webhook deliveries, outbox records or wake-ups failed on our side too often: see the webhooksOut logs',
        metric: this.deadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    }
  }
}
