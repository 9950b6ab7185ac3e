/**
 * The CDK app (data and API stacks, one Lambda per route group from shared/routes.ts)
 * lands with the infrastructure issue. Until then `cdk synth` says so instead of failing
 * obscurely; `npm start` runs the whole service locally.
 */
console.error(
  'The CDK stacks are not built yet: they arrive with the infrastructure work item. Run the service locally with `npm start`.',
);
process.exit(1);
