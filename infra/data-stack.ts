import { Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { AccountRootPrincipal, AnyPrincipal, Effect, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { tableDefinition } from '../shared/db/table.ts';
import { functionSpecs, type Worker } from '../shared/function-specs.ts';
import type { Group } from '../shared/routes.ts';
import { functionRoleName, paymentKeyActions } from './service-function.ts';
import type { StageSettings } from './stages.ts';

export interface DataStackProps extends StackProps {
  settings: StageSettings;
}

/** What a crypto operation on the key needs besides the right role: a project's context. */
const projectContext = { Null: { 'kms:EncryptionContext:projectId': 'false' } };

/**
 * What outlives a deployment of the code: the single table and the KMS key that seals
 * projects' Stripe keys (losing the key would make every stored Stripe key unreadable, so it
 * lives and is retained with the data).
 */
export class DataStack extends Stack {
  readonly table: Table;
  readonly paymentKey: Key;

  constructor(scope: Construct, id: string, props: DataStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const { partitionKey, sortKey, globalSecondaryIndexes, timeToLiveAttribute } = tableDefinition;

    // The same definition the local server creates its table from (shared/db/table.ts).
    this.table = new Table(this, 'Table', {
      partitionKey: { name: partitionKey, type: AttributeType.STRING },
      sortKey: { name: sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute,
      // New items, for the webhooks outbox (infra/webhooks-stack.ts filters the stream to them).
      stream: StreamViewType.NEW_IMAGE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: settings.protective,
      removalPolicy: settings.removalPolicy,
    });
    for (const index of globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      });
    }

    /** One statement allowing the key operation of `use` to the roles of the groups whose spec asks for it. */
    const allowFunctionsTo = (use: keyof typeof paymentKeyActions, sid: string) => {
      const arns = (Object.keys(functionSpecs) as (Group | Worker)[])
        .filter((group) => functionSpecs[group].paymentKeys === use)
        .map((group) =>
          this.formatArn({
            service: 'iam',
            region: '',
            resource: 'role',
            resourceName: functionRoleName(settings.stage, group),
          }),
        );
      if (arns.length === 0) return [];
      return [
        new PolicyStatement({
          sid,
          effect: Effect.ALLOW,
          principals: [new AnyPrincipal()],
          actions: [paymentKeyActions[use]],
          resources: ['*'],
          conditions: {
            StringEquals: { 'aws:PrincipalArn': arns.length === 1 ? arns[0] : arns, 'kms:CallerAccount': this.account },
            ...projectContext,
          },
        }),
      ];
    };
    // The key policy names the function roles by ARN in a condition: a principal that does
    // not exist yet (the API stack deploys after this one) would be refused as a principal,
    // but not in a condition. Administrators manage the key; only the functions whose spec
    // seals (projects) may seal and only those that open (payments) may open, and only with a
    // project context.
    this.paymentKey = new Key(this, 'PaymentKey', {
      alias: `alias/pricing-${settings.stage}-payment-keys`,
      description: `Seals projects' Stripe keys (stage ${settings.stage})`,
      enableKeyRotation: true,
      removalPolicy: settings.removalPolicy,
      policy: new PolicyDocument({
        statements: [
          new PolicyStatement({
            sid: 'KeyAdministration',
            effect: Effect.ALLOW,
            principals: [new AccountRootPrincipal()],
            // kms:CreateAlias rather than kms:Create*, which includes CreateGrant: a grant
            // would hand Decrypt to a principal this policy does not name.
            actions: [
              'kms:CreateAlias',
              'kms:Describe*',
              'kms:Enable*',
              'kms:List*',
              'kms:Put*',
              'kms:Update*',
              'kms:Revoke*',
              'kms:Disable*',
              'kms:Get*',
              'kms:Delete*',
              'kms:TagResource',
              'kms:UntagResource',
              'kms:ScheduleKeyDeletion',
              'kms:CancelKeyDeletion',
            ],
            resources: ['*'],
          }),
          ...allowFunctionsTo('seal', 'FunctionsSeal'),
          ...allowFunctionsTo('open', 'FunctionsOpen'),
        ],
      }),
    });
  }
}
