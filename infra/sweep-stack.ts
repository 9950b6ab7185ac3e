import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { workerSpecs } from '../shared/function-specs.ts';
import { ServiceFunction } from './service-function.ts';
import type { StageSettings } from './stages.ts';

export interface SweepStackProps extends StackProps {
  settings: StageSettings;
  table: ITable;
  /** The payment-key KMS key: migrations the sweeper runs reprice Stripe subscriptions. */
  paymentKey: IKey;
  projectRoot: string;
  bundleAwsSdk: boolean;
}

/** Deliveries of one message before it moves to the dead-letter queue. */
export const SWEEP_MAX_RECEIVES = 5;
/** How often the sweeper looks for sweeps whose hand-over was lost (shared STALE_SWEEP_MS is 15 min). */
export const SWEEP_CHECK_MINUTES = 15;

/**
 * Project deletes finish here, outside API Gateway: DELETE takes the project out of every
 * read in one transaction and hands its sweep to this queue; the sweeper function sweeps it,
 * and hands an unfinished sweep back to the queue before its own timeout. A message that
 * keeps failing goes to the dead-letter queue (an alarm in protective stages); its sweep's
 * record stays in the table, and the periodic check hands it over again.
 */
export class SweepStack extends Stack {
  readonly queue: Queue;
  readonly deadLetters: Queue;
  readonly sweeper: ServiceFunction;

  constructor(scope: Construct, id: string, props: SweepStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const spec = workerSpecs.sweeper;
    const queueDefaults = {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: settings.removalPolicy,
    };
    this.deadLetters = new Queue(this, 'SweepDeadLetters', { ...queueDefaults, retentionPeriod: Duration.days(14) });
    this.queue = new Queue(this, 'SweepQueue', {
      ...queueDefaults,
      // AWS's advice for a Lambda-fed queue: six times the function's timeout, so a message
      // is not delivered again while an invocation still works on it.
      visibilityTimeout: Duration.seconds(6 * spec.timeoutSeconds),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: SWEEP_MAX_RECEIVES },
    });

    this.sweeper = new ServiceFunction(this, 'SweeperFunction', { ...props, group: 'sweeper' });
    this.sweeper.bindSweepQueue(this.queue);
    this.sweeper.bindPaymentKeys(props.paymentKey, spec.paymentKeys);
    // One sweep per invocation, so the time budget is that sweep's alone.
    this.sweeper.fn.addEventSource(new SqsEventSource(this.queue, { batchSize: 1 }));
    new Rule(this, 'ResumeSweeps', {
      description: 'Hands over again the project sweeps that are pending for longer than 15 minutes',
      schedule: Schedule.rate(Duration.minutes(SWEEP_CHECK_MINUTES)),
      targets: [new LambdaFunction(this.sweeper.fn, { retryAttempts: 2 })],
    });

    if (settings.alarms) {
      new Alarm(this, 'SweepDeadLettersAlarm', {
        alarmDescription: 'A project sweep failed five times: its items wait in the table (see the sweeper logs)',
        metric: this.deadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    }
  }
}
