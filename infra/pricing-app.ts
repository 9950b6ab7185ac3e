import { type App, CfnOutput, Tags, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ApiStack } from './api-stack.ts';
import { CdnStack } from './cdn-stack.ts';
import { DataStack } from './data-stack.ts';
import { stageSettings } from './stages.ts';
import { SweepStack } from './sweep-stack.ts';
import { WebhooksStack } from './webhooks-stack.ts';

export interface PricingAppOptions {
  stage: unknown;
  projectRoot: string;
  /** Bundle @aws-sdk/* into each function (default), or leave it to the Lambda runtime (infra/bundling.ts). */
  bundleAwsSdk?: boolean;
}

/**
 * The stacks of one stage. Every stack name carries the stage and no resource has a fixed
 * physical name except those that include it, so two stages deploy side by side in one
 * account.
 */
export function buildPricingApp(app: App, options: PricingAppOptions) {
  const settings = stageSettings(options.stage);
  const env = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };
  const data = new DataStack(app, `Pricing-${settings.stage}-Data`, {
    env,
    settings,
    description: `Pricing plan service, stage ${settings.stage}: table and payment-key KMS key`,
    terminationProtection: settings.protective,
  });
  new CfnOutput(data, 'TableName', { value: data.table.tableName, description: 'For npm run cli (TABLE_NAME)' });
  // What both stacks of functions take: the table, and how to bundle.
  const functions = {
    env,
    settings,
    table: data.table,
    paymentKey: data.paymentKey,
    projectRoot: options.projectRoot,
    bundleAwsSdk: options.bundleAwsSdk ?? true,
  };
  const sweep = new SweepStack(app, `Pricing-${settings.stage}-Sweep`, {
    ...functions,
    description: `Pricing plan service, stage ${settings.stage}: the queue and function that sweep deleted projects`,
  });
  const webhooks = new WebhooksStack(app, `Pricing-${settings.stage}-Webhooks`, {
    ...functions,
    description: `Pricing plan service, stage ${settings.stage}: webhooks out, from the table's stream to the owners' apps`,
  });
  const api = new ApiStack(app, `Pricing-${settings.stage}-Api`, {
    ...functions,
    sweepQueue: sweep.queue,
    description: `Pricing plan service, stage ${settings.stage}: HTTP API and one function per endpoint group`,
  });
  const cdn = new CdnStack(app, `Pricing-${settings.stage}-Cdn`, {
    env,
    settings,
    api: api.api,
    originSecret: api.cdnOriginSecret,
    description: `Pricing plan service, stage ${settings.stage}: CloudFront in front of the public read path`,
  });
  Tags.of(app).add('service', 'pricing-plan-service');
  Tags.of(app).add('stage', settings.stage);
  // cdk-nag's AwsSolutions pack runs at every synth; a finding fails it unless it is
  // acknowledged, with its reason, next to the construct it concerns.
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return { settings, data, sweep, webhooks, api, cdn };
}
