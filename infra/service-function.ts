import { join } from 'node:path';
import { Duration, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import {
  Architecture,
  Function as LambdaFunction,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { paymentRecordsKeyPrefix } from '../shared/db/table.ts';
import { functionSpecs, type GroupAsset, type GroupSpec, type Worker } from '../shared/function-specs.ts';
import type { Group } from '../shared/routes.ts';
import { writeWidget } from '../widget/build.ts';
import { functionCode } from './bundling.ts';
import type { StageSettings } from './stages.ts';

/**
 * What shared/db does with the base table: GetItem, BatchGetItem (an entitlement read with
 * its usage, a batch of usage events) and Query to read; PutItem, UpdateItem
 * and DeleteItem (ElectroDB create, patch/update, delete), BatchWriteItem (sweeps) and
 * ConditionCheckItem (the checks inside TransactWriteItems) to write. An index only takes Query.
 */
export const tableActions = {
  read: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'],
  write: [
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:BatchWriteItem',
    'dynamodb:ConditionCheckItem',
  ],
  index: ['dynamodb:Query'],
};

/** What the payment records take (shared/db/rate-limits.ts, checkout-sessions.ts), under their key prefix only. */
export const paymentRecordActions = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'];

/** The IAM condition that keeps a grant to the items of the payment records' partitions. */
export const paymentRecordsCondition = {
  'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${paymentRecordsKeyPrefix}*`] },
};

/** The actions a spec's `table` access grants on the base table. */
export const tableActionsFor = (access: GroupSpec['table']): string[] =>
  ({
    none: [],
    read: tableActions.read,
    readWrite: [...tableActions.read, ...tableActions.write],
    // The sweeper reads keys page by page (GetItem, Query) and deletes: no BatchGetItem.
    readDelete: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'],
  })[access];

/** The KMS operation a spec's `paymentKeys` use needs: sealing a new key or opening a stored one. */
export const paymentKeyActions = { seal: 'kms:GenerateDataKey', open: 'kms:Decrypt' } as const;

/**
 * How each file a spec's `assets` names is built, in the synth process, straight into the
 * bundle's output directory after the bundle: the asset hash covers the file too.
 */
const assetBuilders: Record<GroupAsset, (file: string) => void> = {
  'widget.js': (file) => {
    writeWidget(file);
  },
};

const buildAssetsBeside = (assets: readonly GroupAsset[]) => (outputDir: string) => {
  for (const asset of assets) assetBuilders[asset](join(outputDir, asset));
};

/** The role of a group's function, named so the payment key's policy can name it before it exists. */
export const functionRoleName = (stage: string, group: Group | Worker) => `pricing-${stage}-${group}`;

export interface ServiceFunctionProps {
  /** An endpoint group, or a worker (no route; its own trigger): functions/<name>/handler.ts. */
  group: Group | Worker;
  settings: StageSettings;
  projectRoot: string;
  /** true: @aws-sdk/* is bundled; false (deployed): the Lambda runtime's SDK v3 (infra/bundling.ts). */
  bundleAwsSdk: boolean;
  table: ITable;
}

/**
 * One endpoint group's Lambda, configured by its spec (shared/function-specs.ts), with the house defaults: Node 22 on arm64, bundled by the
 * local esbuild (no Docker) into minified ESM (infra/bundling.ts), its own log group with the
 * stage's retention, and a role that starts with nothing but writing that log group. Every
 * further permission comes from a bind call that also sets the matching environment.
 */
export class ServiceFunction extends Construct {
  readonly fn: LambdaFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const { group, settings } = props;
    const spec: GroupSpec = functionSpecs[group];
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: settings.logRetention,
      removalPolicy: settings.removalPolicy,
    });
    this.role = new Role(this, 'Role', {
      roleName: functionRoleName(settings.stage, group),
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `The ${group} function of stage ${settings.stage}`,
    });
    this.logGroup.grantWrite(this.role);

    this.fn = new LambdaFunction(this, 'Function', {
      code: functionCode(
        props.projectRoot,
        `${props.projectRoot}/functions/${group}/handler.ts`,
        props.bundleAwsSdk,
        buildAssetsBeside(spec.assets),
      ),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: settings.memorySize,
      timeout: Duration.seconds(spec.timeoutSeconds),
      role: this.role,
      logGroup: this.logGroup,
      // Our own lines are JSON already; the JSON format makes the platform's lines (START,
      // REPORT) and any stray console output JSON too, each with the Lambda request id.
      loggingFormat: LoggingFormat.JSON,
      systemLogLevelV2: SystemLogLevel.WARN,
      environment: { LOG_LEVEL: settings.logLevel },
    });
    Validations.of(this.fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'Node 22 (NODEJS_22_X) is the runtime this service is built, bundled (target node22) and tested for; a newer runtime is a deliberate upgrade, not a synth-time default.',
    });
    this.bindTable(props.table, spec);
  }

  /**
   * The table's name in TABLE_NAME, the spec's access to the base table and Query on the
   * spec's indexes: no more. Spelled out rather than `table.grantReadData`, whose `index/*`
   * and Scan, stream and DescribeTable actions this code never uses.
   */
  private bindTable(table: ITable, { table: access, indexes, paymentRecords }: GroupSpec): void {
    this.fn.addEnvironment('TABLE_NAME', table.tableName);
    if (paymentRecords !== 'none') this.allow(paymentRecordActions, [table.tableArn], paymentRecordsCondition);
    if (access !== 'none') this.allow(tableActionsFor(access), [table.tableArn]);
    const indexArns = indexes.map((index) => `${table.tableArn}/index/${index}`);
    if (indexArns.length > 0) this.allow(tableActions.index, indexArns);
  }

  /**
   * The sweep queue in SWEEP_QUEUE_URL, and SendMessage on it: no more (the queue is
   * SQS-encrypted, so no KMS grant; the sweeper's consuming grants come with its event source).
   */
  bindSweepQueue(queue: IQueue): this {
    this.fn.addEnvironment('SWEEP_QUEUE_URL', queue.queueUrl);
    return this.allow(['sqs:SendMessage'], [queue.queueArn]);
  }

  /**
   * The payment-key KMS key in PAYMENT_KMS_KEY_ID, and only the one operation this group
   * performs with it: sealing a new key (GenerateDataKey) or opening a stored one (Decrypt).
   * The key's own policy allows the same, to these roles only.
   */
  bindPaymentKeys(key: IKey, use: Exclude<GroupSpec['paymentKeys'], 'none'>): this {
    this.fn.addEnvironment('PAYMENT_KMS_KEY_ID', key.keyArn);
    return this.allow([paymentKeyActions[use]], [key.keyArn]);
  }

  /** One more Allow statement in this function's role. */
  allow(actions: string[], resources: string[], conditions?: Record<string, unknown>): this {
    this.role.addToPrincipalPolicy(new PolicyStatement({ effect: Effect.ALLOW, actions, resources, conditions }));
    return this;
  }
}
