import type { CfnResource } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { routes } from '../../functions/routes.ts';
import {
  CDN_MAX_TTL,
  cachedPaths,
  passThroughPaths,
  UNCACHED_MAX_TTL,
  uncachedPublicPaths,
} from '../../infra/cdn-stack.ts';
import { groupNames } from '../../shared/function-specs.ts';
import { CDN_ORIGIN_HEADER } from '../../shared/http/client-address.ts';
import { type CfnTemplate, only, resourcesOfType, type SynthesizedStage, synthStage } from '../fixtures/cdk.ts';

/**
 * The CDN stack of a stage: one CloudFront distribution in front of the API whose cached
 * behaviours honour the origin's Cache-Control (no caching without it), keep no header, cookie
 * or Authorization in the key, compress, and pass payments through uncached (still coded).
 */
let dev: SynthesizedStage;
let prod: SynthesizedStage;
let cdn: CfnTemplate;

beforeAll(async () => {
  [dev, prod] = await Promise.all([synthStage('dev', { bundle: false }), synthStage('prod', { bundle: false })]);
  cdn = Template.fromStack(dev.built.cdn).toJSON() as CfnTemplate;
}, 240_000);

afterAll(async () => {
  await Promise.all([dev?.cleanup(), prod?.cleanup()]);
});

/** CloudFront's managed policies, by their documented ids. */
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

const distributionConfig = () =>
  only(resourcesOfType(cdn, 'AWS::CloudFront::Distribution'))[1].Properties?.DistributionConfig;
const behaviour = (path: string) =>
  only(
    (distributionConfig().CacheBehaviors as { PathPattern: string }[]).filter((b) => b.PathPattern === path),
    `behaviour for ${path}`,
  ) as Record<string, any>;
/** The cache policy a behaviour points at: `{ Ref: <logical id> }` in this template. */
const cachePolicyOf = (b: Record<string, any>) =>
  cdn.Resources[b.CachePolicyId.Ref as string]?.Properties?.CachePolicyConfig as Record<string, any>;

/**
 * An uncached behaviour that still forwards Accept-Encoding and compresses: its policy's codings
 * are on (CachingDisabled's are off, and then CloudFront drops Accept-Encoding), its TTLs 0 unless
 * the origin asks, at most a second, and every query string is in the key.
 */
function expectUncachedButCoded(b: Record<string, any>) {
  expect(b.Compress).toBe(true);
  const policy = cachePolicyOf(b);
  expect(policy.MinTTL).toBe(0);
  expect(policy.DefaultTTL).toBe(0);
  expect(policy.MaxTTL).toBe(UNCACHED_MAX_TTL.toSeconds());
  expect(policy.MaxTTL).toBeGreaterThan(0);
  const key = policy.ParametersInCacheKeyAndForwardedToOrigin;
  expect(key.EnableAcceptEncodingGzip).toBe(true);
  expect(key.EnableAcceptEncodingBrotli).toBe(true);
  expect(key.HeadersConfig).toEqual({ HeaderBehavior: 'none' });
  expect(key.CookiesConfig).toEqual({ CookieBehavior: 'none' });
  expect(key.QueryStringsConfig).toEqual({ QueryStringBehavior: 'all' });
}

/** A CloudFront path pattern (`*` any characters) as a test on a route template's path. */
const patternMatches = (pattern: string, path: string) =>
  new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(path);

describe('the CDN: one distribution per stage in front of the API', () => {
  test('each stage has its own distribution, named after it, with its URL as an output', () => {
    for (const stage of [dev, prod]) {
      const template = Template.fromStack(stage.built.cdn).toJSON() as CfnTemplate;
      const config = only(resourcesOfType(template, 'AWS::CloudFront::Distribution'))[1].Properties?.DistributionConfig;
      expect(config.Comment).toContain(`Pricing ${stage.built.settings.stage}:`);
      expect(template.Outputs?.CdnUrl).toBeDefined();
    }
  });

  test('its one origin is the API over HTTPS (TLS 1.2), and viewers are sent to HTTPS', () => {
    const origin = only(distributionConfig().Origins as Record<string, any>[]);
    expect(origin.CustomOriginConfig.OriginProtocolPolicy).toBe('https-only');
    expect(origin.CustomOriginConfig.OriginSSLProtocols).toEqual(['TLSv1.2']);
    expect(JSON.stringify(origin.DomainName)).toContain('ApiEndpoint');
    // One shield cache between the edges and the API: one origin request per window, not one per edge.
    expect(origin.OriginShield).toEqual({ Enabled: true, OriginShieldRegion: { Ref: 'AWS::Region' } });
    for (const b of [distributionConfig().DefaultCacheBehavior, ...distributionConfig().CacheBehaviors]) {
      expect(b.ViewerProtocolPolicy).toBe('redirect-to-https');
      expect(b.Compress).toBe(true);
    }
  });

  test.each(Object.keys(cachedPaths))(
    '%s: cached for as long as the origin says (0 without Cache-Control, at most a day), keyed without headers, cookies or Authorization',
    (path) => {
      const b = behaviour(path);
      expect(b.AllowedMethods.sort()).toEqual(['GET', 'HEAD', 'OPTIONS']);
      expect(b.CachedMethods.sort()).toEqual(['GET', 'HEAD']);
      expect(b.OriginRequestPolicyId).toBeUndefined();
      const policy = cachePolicyOf(b);
      expect(policy.MinTTL).toBe(0);
      expect(policy.DefaultTTL).toBe(0);
      expect(policy.MaxTTL).toBe(CDN_MAX_TTL.toSeconds());
      const key = policy.ParametersInCacheKeyAndForwardedToOrigin;
      expect(key.HeadersConfig).toEqual({ HeaderBehavior: 'none' });
      expect(key.CookiesConfig).toEqual({ CookieBehavior: 'none' });
      expect(key.EnableAcceptEncodingGzip).toBe(true);
      expect(key.EnableAcceptEncodingBrotli).toBe(true);
      const queryStrings = cachedPaths[path as keyof typeof cachedPaths];
      expect(key.QueryStringsConfig).toEqual(
        queryStrings.length === 0
          ? { QueryStringBehavior: 'none' }
          : { QueryStringBehavior: 'whitelist', QueryStrings: [...queryStrings] },
      );
    },
  );

  test('no cache policy of the stack keys on or forwards Authorization', () => {
    for (const [, policy] of resourcesOfType(cdn, 'AWS::CloudFront::CachePolicy')) {
      expect(JSON.stringify(policy.Properties).toLowerCase()).not.toContain('authorization');
    }
  });

  test('every request to the API carries the stage’s origin secret, which only the payments and customers functions hold', () => {
    const origin = only(distributionConfig().Origins as Record<string, any>[]);
    const header = only(origin.OriginCustomHeaders as { HeaderName: string; HeaderValue: unknown }[]);
    expect(header.HeaderName).toBe(CDN_ORIGIN_HEADER);
    const api = Template.fromStack(dev.built.api).toJSON() as CfnTemplate;
    const [secretId, secret] = only(
      resourcesOfType(api, 'AWS::SecretsManager::Secret').filter(([id]) => id.startsWith('CdnOriginSecret')),
    );
    expect(secret.Properties?.GenerateSecretString).toMatchObject({ PasswordLength: 48, ExcludePunctuation: true });
    // A dynamic reference to that secret, resolved by CloudFormation at deploy: never in the template.
    expect(JSON.stringify(header.HeaderValue)).toContain('{{resolve:secretsmanager:');
    expect(JSON.stringify(header.HeaderValue)).toContain(secretId);
    for (const group of groupNames) {
      const { fn: lambda } = dev.built.api.functions[group];
      const fn = api.Resources[dev.built.api.getLogicalId(lambda.node.defaultChild as CfnResource)];
      const variables = fn?.Properties?.Environment?.Variables ?? {};
      if (group === 'payments' || group === 'customers') {
        expect(JSON.stringify(variables.CDN_ORIGIN_SECRET)).toContain('{{resolve:secretsmanager:');
        expect(JSON.stringify(variables.CDN_ORIGIN_SECRET)).toContain(secretId);
      } else {
        expect(variables, group).not.toHaveProperty('CDN_ORIGIN_SECRET');
      }
      // Customer tokens' signing keys: a secret per key id, in the customers function only.
      if (group === 'customers') {
        const [tokenSecretId] = only(
          resourcesOfType(api, 'AWS::SecretsManager::Secret').filter(([id]) => id.startsWith('CustomerTokenKey')),
        );
        expect(JSON.stringify(variables.CUSTOMER_TOKEN_KEYS)).toContain('k1:');
        expect(JSON.stringify(variables.CUSTOMER_TOKEN_KEYS)).toContain(tokenSecretId);
      } else {
        expect(variables, group).not.toHaveProperty('CUSTOMER_TOKEN_KEYS');
      }
    }
  });

  test('payments pass through uncached, every method, with the viewer headers but not Host', () => {
    for (const path of passThroughPaths) {
      const b = behaviour(path);
      expectUncachedButCoded(b);
      expect(b.OriginRequestPolicyId).toBe(ALL_VIEWER_EXCEPT_HOST_HEADER);
      expect(b.AllowedMethods).toEqual(expect.arrayContaining(['POST', 'GET', 'HEAD', 'OPTIONS']));
    }
  });

  test('anything else (API v1) is not cached and gets no viewer header: an API key is never forwarded', () => {
    const b = distributionConfig().DefaultCacheBehavior;
    expectUncachedButCoded(b);
    expect(b.OriginRequestPolicyId).toBeUndefined();
    expect(b.AllowedMethods.sort()).toEqual(['GET', 'HEAD', 'OPTIONS']);
  });

  test('the cached and passed-through paths serve public routes only, and every public route is behind one', () => {
    const patterns = [...Object.keys(cachedPaths), ...passThroughPaths];
    for (const route of routes.filter((r) => !(uncachedPublicPaths as readonly string[]).includes(r.path))) {
      const covered = patterns.some((pattern) => patternMatches(pattern, route.path));
      expect({ route: route.path, covered }).toEqual({ route: route.path, covered: route.auth === 'public' });
    }
  });
});
