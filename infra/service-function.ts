import { join } from 'node:path';
import { Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Architecture, LoggingFormat, Runtime, SystemLogLevel } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { tableDefinition } from '../shared/db/table.ts';
import type { Group } from '../shared/routes.ts';
import { writeWidget } from '../widget/build.ts';
import type { StageSettings } from './stages.ts';

/**
 * What shared/db does with the table: GetItem and Query (table and indexes) to read;
 * PutItem, UpdateItem and DeleteItem (ElectroDB create, patch/update, delete), BatchWriteItem
 * (sweeps) and ConditionCheckItem (the checks inside TransactWriteItems) to write.
 */
export const tableActions = {
  read: ['dynamodb:GetItem', 'dynamodb:Query'],
  write: [
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:BatchWriteItem',
    'dynamodb:ConditionCheckItem',
  ],
};

/**
 * The share function serves GET /widget.js from a file next to its code. The widget is
 * built here, in the synth process, straight into the bundle's output directory (local
 * bundling hands us the real path), so no shell command is needed and the asset hash
 * covers the widget too.
 */
const widgetBeside = {
  beforeBundling: () => [],
  beforeInstall: () => [],
  afterBundling: (_inputDir: string, outputDir: string) => {
    writeWidget(join(outputDir, 'widget.js'));
    return [];
  },
};

/** The role of a group's function, named so the payment key's policy can name it before it exists. */
export const functionRoleName = (stage: string, group: Group) => `pricing-${stage}-${group}`;

export interface ServiceFunctionProps {
  group: Group;
  settings: StageSettings;
  projectRoot: string;
  /** true: @aws-sdk/* is bundled (the version we test); false: left to the Lambda runtime. */
  bundleAwsSdk: boolean;
}

/**
 * One endpoint group's Lambda with the house defaults: Node 22 on arm64, bundled by the
 * local esbuild (no Docker) into minified ESM with source maps, its own log group with the
 * stage's retention, and a role that starts with nothing but writing that log group. Every
 * further permission comes from a bind call that also sets the matching environment.
 */
export class ServiceFunction extends Construct {
  readonly fn: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const { group, settings } = props;
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

    this.fn = new NodejsFunction(this, 'Function', {
      entry: `${props.projectRoot}/functions/${group}/handler.ts`,
      handler: 'handler',
      projectRoot: props.projectRoot,
      depsLockFilePath: `${props.projectRoot}/package-lock.json`,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: settings.memorySize,
      timeout: group === 'payments' ? settings.timeouts.payments : settings.timeouts.default,
      role: this.role,
      logGroup: this.logGroup,
      // Our own lines are JSON already; the JSON format makes the platform's lines (START,
      // REPORT) and any stray console output JSON too, each with the Lambda request id.
      loggingFormat: LoggingFormat.JSON,
      systemLogLevelV2: SystemLogLevel.WARN,
      environment: {
        LOG_LEVEL: settings.logLevel,
        NODE_OPTIONS: '--enable-source-maps',
      },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node22',
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        mainFields: ['module', 'main'],
        externalModules: props.bundleAwsSdk ? [] : ['@aws-sdk/*'],
        // CommonJS dependencies bundled into ESM still call require() for Node's built-ins.
        banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
        ...(group === 'share' ? { commandHooks: widgetBeside } : {}),
      },
    });
    Validations.of(this.fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'Node 22 (NODEJS_22_X) is the runtime this service is built, bundled (target node22) and tested for; a newer runtime is a deliberate upgrade, not a synth-time default.',
    });
  }

  /**
   * The table's name in TABLE_NAME, and read or read-write on it and its named indexes: no
   * more. Spelled out rather than `table.grantReadData`, whose `index/*` and Scan, stream and
   * DescribeTable actions this code never uses.
   */
  bindTable(table: ITable, access: 'read' | 'readWrite'): this {
    this.fn.addEnvironment('TABLE_NAME', table.tableName);
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: access === 'read' ? tableActions.read : [...tableActions.read, ...tableActions.write],
        resources: [
          table.tableArn,
          ...tableDefinition.globalSecondaryIndexes.map((index) => `${table.tableArn}/index/${index.indexName}`),
        ],
      }),
    );
    return this;
  }

  /**
   * The payment-key KMS key in PAYMENT_KMS_KEY_ID, and only the one operation this group
   * performs with it: sealing a new key (GenerateDataKey) or opening a stored one (Decrypt).
   * The key's own policy allows the same, to these roles only.
   */
  bindPaymentKeys(key: IKey, use: 'seal' | 'open'): this {
    this.fn.addEnvironment('PAYMENT_KMS_KEY_ID', key.keyArn);
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: [use === 'seal' ? 'kms:GenerateDataKey' : 'kms:Decrypt'],
        resources: [key.keyArn],
      }),
    );
    return this;
  }
}
