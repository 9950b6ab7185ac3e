import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { App, type IPolicyValidationPlugin, Stack, Validations } from 'aws-cdk-lib';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { routesByGroup } from '../../functions/routes.ts';
import { groupSpecs } from '../../shared/function-specs.ts';
import type { Group } from '../../shared/routes.ts';
import { groups, logicalId, type SynthesizedStage, synthStage } from '../fixtures/cdk.ts';

/**
 * The cloud assembly `cdk synth -c stage=dev` produces, bundles included: what cdk-nag says
 * about it, and whether each function's bundle loads and answers on its own. prod is
 * synthesized too (without bundling) so its extra resources (alarms) go through cdk-nag.
 */
let dev: SynthesizedStage;
let prod: SynthesizedStage;

beforeAll(async () => {
  dev = await synthStage('dev', { bundle: true });
  prod = await synthStage('prod', { bundle: false });
  // What the Lambda runtime provides beside a bundle: the AWS SDK v3 (@aws-sdk/*, left out of
  // the bundles), and nothing else of node_modules.
  await mkdir(join(dev.outdir, 'node_modules'));
  await symlink(join(process.cwd(), 'node_modules', '@aws-sdk'), join(dev.outdir, 'node_modules', '@aws-sdk'));
  // Four stacks a stage (the CDN's and the sweep's too), two stages, six bundles: minutes on a busy machine.
}, 240_000);

afterAll(async () => {
  await Promise.all([dev?.cleanup(), prod?.cleanup()]);
});

interface ValidationReport {
  pluginReports: {
    pluginName: string;
    conclusion: 'success' | 'failure';
    violations: { ruleName: string; violatingConstructs: { constructPath: string }[] }[];
  }[];
}

const readReport = (outdir: string): ValidationReport =>
  JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8'));

const awsSolutionsPlugins = (app: App) =>
  (app as unknown as { _validationPlugins: IPolicyValidationPlugin[] })._validationPlugins.filter(
    (plugin): plugin is AwsSolutionsChecks => plugin instanceof AwsSolutionsChecks,
  );

/** Every acknowledgment recorded with `Validations.of(x).acknowledge`, with where and why. */
function acknowledgments(root: IConstruct) {
  const found: { path: string; id: string; reason: unknown }[] = [];
  const walk = (construct: IConstruct) => {
    for (const entry of construct.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY || !entry.data) continue;
      for (const [key, reason] of Object.entries(entry.data as Record<string, unknown>)) {
        found.push({ path: construct.node.path, id: key.replace(/^annotation::/i, ''), reason });
      }
    }
    for (const child of construct.node.children) walk(child);
  };
  walk(root);
  return found;
}

describe('cdk-nag: the synthesized assembly has no unacknowledged AwsSolutions finding', () => {
  test('the pricing app registers AwsSolutionsChecks as a policy-validation plugin, once', () => {
    expect(awsSolutionsPlugins(dev.app)).toHaveLength(1);
    expect(awsSolutionsPlugins(prod.app)).toHaveLength(1);
  });

  test('synth succeeded and its validation report has no failing plugin and no violation', () => {
    for (const { outdir } of [dev, prod]) {
      const report = readReport(outdir);
      expect(report.pluginReports.filter((plugin) => plugin.conclusion !== 'success')).toEqual([]);
      expect(report.pluginReports.flatMap((plugin) => plugin.violations)).toEqual([]);
    }
  });

  test('AwsSolutionsChecks.validateScope over the dev and prod apps: success, zero violations', () => {
    for (const { app } of [dev, prod]) {
      const report = new AwsSolutionsChecks().validateScope(app);
      expect(report.violations).toEqual([]);
      expect(report.success).toBe(true);
    }
  });

  test('the only acknowledgments are APIG4 on routes, L1 on functions, CFR1-4 on the CDN, IAM5 for ListStreams and the wake-up schedules, and SMG4 on the secrets rotated by deploys, each with its reason', () => {
    const found = acknowledgments(dev.app);
    expect(found.length).toBeGreaterThan(0);
    for (const { path, id, reason } of found) {
      expect(typeof reason === 'string' && reason.trim().length > 20, `${path} ${id} has a reason`).toBe(true);
      if (id === 'AwsSolutions-APIG4') expect(path).toMatch(/^Pricing-dev-Api\/(Route[A-Za-z0-9]+|Api\/DefaultRoute)$/);
      else if (id === 'AwsSolutions-L1')
        expect(path).toMatch(/^Pricing-dev-(Api|Sweep|Webhooks)\/[A-Za-z]+Function\/Function$/);
      else if (id === 'AwsSolutions-IAM5[Resource::*]')
        expect(path).toBe('Pricing-dev-Webhooks/WebhooksOutFunction/Role');
      // CreateSchedule on the schedules of the stage's own wake-up group.
      else if (
        /^AwsSolutions-IAM5\[Resource::arn:<AWS::Partition>:scheduler:(<AWS::Region>|[a-z0-9-]+):<AWS::AccountId>:schedule\/[\w-]+\/\*\]$/.test(
          id,
        )
      )
        expect(path).toBe('Pricing-dev-Webhooks/WebhooksOutFunction/Role');
      else if (/^AwsSolutions-CFR[1-4]$/.test(id)) expect(path).toBe('Pricing-dev-Cdn/Distribution');
      // Secrets rotated by redeploying (the CDN origin header, customer token keys by key id).
      else if (id === 'AwsSolutions-SMG4')
        expect(path).toMatch(/^Pricing-dev-Api\/(CdnOriginSecret|CustomerTokenKeyK\d+)$/);
      else expect.unreachable(`unexpected acknowledgment ${id} on ${path}`);
    }
  });

  describe('the check can fail', () => {
    const synthTiny = async (acknowledge: boolean) => {
      const outdir = await mkdtemp(join(tmpdir(), 'pricing-cdk-nag-'));
      // In-memory mode: a failing validation throws, with the report in the message.
      const app = new App({ outdir, context: { '@aws-cdk/core:appMode': 'inmemory' } });
      const stack = new Stack(app, 'Tiny');
      // No point-in-time recovery: AwsSolutions-DDB3.
      const table = new Table(stack, 'Table', { partitionKey: { name: 'pk', type: AttributeType.STRING } });
      if (acknowledge) Validations.of(table).acknowledge({ id: 'AwsSolutions-DDB3', reason: 'A test of the check.' });
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
      let error: unknown;
      try {
        app.synth();
      } catch (caught) {
        error = caught;
      }
      const report = existsSync(join(outdir, 'validation-report.json')) ? readReport(outdir) : undefined;
      const direct = new AwsSolutionsChecks().validateScope(app);
      await rm(outdir, { recursive: true, force: true });
      return { error, report, direct };
    };

    test('an unacknowledged finding (a table without PITR) fails synth and is in the report', async () => {
      const { error, report, direct } = await synthTiny(false);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toContain('AwsSolutions-DDB3');
      const nag = report?.pluginReports.find((plugin) => plugin.pluginName === 'AwsSolutions');
      expect(nag?.conclusion).toBe('failure');
      const ddb3 = nag?.violations.find((violation) => violation.ruleName === 'AwsSolutions-DDB3');
      expect(ddb3?.violatingConstructs.map((construct) => construct.constructPath)).toEqual(['Tiny/Table/Resource']);
      expect(direct.success).toBe(false);
      expect(direct.violations.map((violation) => violation.ruleName)).toContain('AwsSolutions-DDB3');
    });

    test('the same finding, acknowledged, passes', async () => {
      const { error, report, direct } = await synthTiny(true);
      expect(error).toBeUndefined();
      expect(report?.pluginReports.filter((plugin) => plugin.conclusion !== 'success')).toEqual([]);
      expect(direct).toEqual({ success: true, violations: [] });
    });
  });
});

describe('bundles: each function ships a self-contained ESM bundle that answers on its own', () => {
  const assetDirOf = (group: Group) => {
    const api = dev.built.api;
    const fn = dev.apiJson.Resources[logicalId(api, api.functions[group].fn)];
    const s3Key: string = fn?.Properties?.Code?.S3Key;
    expect(s3Key).toMatch(/^[0-9a-f]{64}\.zip$/);
    const hash = s3Key.replace(/\.zip$/, '');
    const manifest = JSON.parse(readFileSync(join(dev.outdir, `${api.artifactId}.assets.json`), 'utf8'));
    const file = manifest.files[hash];
    expect(file?.source?.packaging).toBe('zip');
    expect(Object.values(file?.destinations ?? {}).map((d: any) => d.objectKey)).toContain(s3Key);
    return join(dev.outdir, file.source.path as string);
  };

  test.each(groups)(
    '%s: its asset directory holds index.mjs, its chunks and the assets of its spec, nothing else (no source map)',
    async (group) => {
      const dir = assetDirOf(group);
      const assets = groupSpecs[group].assets;
      const entries = await readdir(dir);
      expect(entries.filter((name) => name !== 'chunks').sort()).toEqual(['index.mjs', ...assets].sort());
      const chunks = entries.includes('chunks') ? await readdir(join(dir, 'chunks')) : [];
      expect(chunks.filter((name) => !name.endsWith('.mjs'))).toEqual([]);
      for (const file of ['index.mjs', ...chunks.map((name) => join('chunks', name))]) {
        const code = readFileSync(join(dir, file), 'utf8');
        expect(code).not.toContain('sourceMappingURL');
        // The SDK is bundled: the package carries it rather than importing the runtime's.
        expect(code).not.toMatch(/from\s*"@aws-sdk\//);
      }
    },
  );

  test('the bundles are distinct assets, one per group', () => {
    expect(new Set(groups.map(assetDirOf)).size).toBe(groups.length);
  });

  /**
   * Imports the bundle in a fresh Node with sockets and DNS disabled, invokes its handler with a
   * payload v2 GET event (by default for a path no route matches), and prints the result and
   * any network attempt.
   */
  const invokeScript = `
    import dns from 'node:dns';
    import net from 'node:net';
    import { pathToFileURL } from 'node:url';
    const attempts = [];
    const refuse = (what) => function () { attempts.push(what); throw new Error('network disabled in this test: ' + what); };
    net.Socket.prototype.connect = refuse('net.Socket.connect');
    dns.lookup = refuse('dns.lookup');
    dns.promises.lookup = refuse('dns.promises.lookup');
    globalThis.fetch = refuse('fetch');
    let output;
    try {
      const { handler } = await import(pathToFileURL(process.argv[1]).href);
      const path = process.argv[3] ?? '/nope';
      const method = process.argv[4] ?? 'GET';
      const event = {
        version: '2.0',
        routeKey: process.argv[5] ?? (path === '/nope' ? '$default' : 'GET ' + path),
        rawPath: path,
        rawQueryString: '',
        headers: {},
        isBase64Encoded: false,
        requestContext: { http: { method, path }, requestId: process.argv[2] },
      };
      const context = { awsRequestId: 'aws-' + process.argv[2], getRemainingTimeInMillis: () => 10000 };
      output = { result: await handler(event, context), attempts };
    } catch (error) {
      output = { error: String(error && error.stack || error).slice(0, 2000), attempts };
    }
    process.stdout.write('\\n@@RESULT@@' + JSON.stringify(output));
  `;

  /** The bundle's answer to GET `path`, with only what a Lambda of this stack would see. */
  async function invokeBundle(group: Group, requestId: string, path?: string, method?: string, routeKey?: string) {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        invokeScript,
        join(assetDirOf(group), 'index.mjs'),
        requestId,
        ...(path ? [path] : []),
        ...(method ? [method] : []),
        ...(routeKey ? [routeKey] : []),
      ],
      {
        // Only what a Lambda of this stack would see, and nothing of the test process.
        env: {
          PATH: process.env.PATH ?? '',
          // config.ts wants a valid DynamoDB table name (3-255 characters): "t" would fail the cold start.
          TABLE_NAME: 'pricing-test',
          AWS_REGION: 'us-east-1',
          PAYMENT_KMS_KEY_ID: 'arn:aws:kms:us-east-1:111111111111:key/test',
          CUSTOMER_TOKEN_KEYS: `k1:${'s'.repeat(64)}`,
          SWEEP_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/111111111111/sweeps',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          LOG_LEVEL: 'silent',
        },
        timeout: 20_000,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    const output = JSON.parse(stdout.slice(stdout.lastIndexOf('@@RESULT@@') + '@@RESULT@@'.length));
    expect(output.error).toBeUndefined();
    expect(output.attempts).toEqual([]);
    return output.result;
  }

  test.each(groups)(
    '%s: imported in a child Node, answers an unmatched route 404 not_found with x-request-id, offline',
    async (group) => {
      const requestId = `infra-test-${group}`;
      const result = await invokeBundle(group, requestId);
      expect(result.statusCode).toBe(404);
      expect(result.headers['x-request-id']).toBe(requestId);
      expect(result.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(result.body)).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    },
  );

  test("share, the $default fallback, routes by the whole table: 405 with the Allow of another group's path", async () => {
    const result = await invokeBundle('share', 'infra-test-405', '/api/v1/projects', 'PATCH', '$default');
    expect(result.statusCode).toBe(405);
    expect(result.headers.allow).toBe('GET, HEAD, POST');
  });

  /** A group's GET routes that need an API key: a HEAD of one is answered 401 before any read. */
  const keyedGets = (group: Group) =>
    routesByGroup[group].filter((entry) => entry.method === 'GET' && entry.auth !== 'public');

  test.each(groups.filter((group) => keyedGets(group).length > 0))(
    '%s: answers HEAD of each of its keyed GET routes from its own routes: 401 without a body (offline, before any read)',
    async (group) => {
      for (const route of keyedGets(group)) {
        const path = route.path.replace(/\{(\w+)\}/g, 'x1');
        const head = await invokeBundle(group, `infra-head-${group}`, path, 'HEAD', `HEAD ${route.path}`);
        expect(head.statusCode, `HEAD ${route.path}`).toBe(401);
        expect(head.body, `HEAD ${route.path}`).toBeUndefined();
        expect(Number(head.headers['content-length']), `HEAD ${route.path}`).toBeGreaterThan(0);
      }
    },
  );

  test('share: serves the widget built into its asset directory at GET /widget.js', async () => {
    const result = await invokeBundle('share', 'infra-test-widget', '/widget.js');
    expect(result.statusCode).toBe(200);
    expect(result.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(result.body).toBe(readFileSync(join(assetDirOf('share'), 'widget.js'), 'utf8'));
    expect(result.body).toContain('pricing-table');
  });
});
