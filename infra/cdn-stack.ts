import { CfnOutput, Duration, Fn, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AllowedMethods,
  CachedMethods,
  CachePolicy,
  CacheQueryStringBehavior,
  Distribution,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  PriceClass,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { CDN_ORIGIN_HEADER } from '../shared/http/client-address.ts';
import type { StageSettings } from './stages.ts';

export interface CdnStackProps extends StackProps {
  settings: StageSettings;
  api: IHttpApi;
  /** Sent to the API in CDN_ORIGIN_HEADER with every request: it came through CloudFront. */
  originSecret: ISecret;
}

/**
 * The longest an answer stays cached when its origin allows it: the origin's Cache-Control
 * max-age (share 30 s, demo 5 min, widget.js a day) is what counts below this cap.
 */
export const CDN_MAX_TTL = Duration.days(1);

/** The cached public paths, with what each keeps of the query string. */
export const cachedPaths = {
  // The widget's first read names no visitor, so a page has one public copy for everyone. Only
  // while a pricing experiment runs does it read again with `visitor`, whose answer is the
  // visitor's variant and `private, no-store`, which nothing caches. The id must stay in the
  // key: a cache policy forwards to the origin only the query strings its key holds (there is no
  // origin request policy here), so without it the origin would never see the visitor.
  '/api/share/*': ['visitor'],
  '/widget.js': [],
  // The OpenAPI document: 5 minutes, revalidated by ETag.
  '/openapi.json': [],
  // Back from a checkout the demo page names the session (and answers no-store then).
  '/demo/*': ['session_id'],
} as const satisfies Record<string, readonly string[]>;

/** The uncached behaviours' ceiling: above 0 so that CloudFront forwards Accept-Encoding. */
export const UNCACHED_MAX_TTL = Duration.seconds(1);

/**
 * Public routes the default behaviour serves (uncached, no viewer header), on purpose: the
 * service's name and its health, which must reflect the origin at every request.
 */
export const uncachedPublicPaths = ['/', '/health'] as const;

/**
 * Passed through to the API, never cached: checkout and receipts, and a pricing page's views
 * (POSTs under /api/share/, so this behaviour comes before the share data's).
 */
export const passThroughPaths = ['/api/share/*/views', '/api/payments/*'] as const;

/**
 * One CloudFront distribution per stage in front of the HTTP API, for the public read path:
 * the share data, the widget script and the demo page are cached as their Cache-Control and
 * ETag say (nothing is cached that the origin did not mark public; stale copies revalidate by
 * ETag) and compressed; payments pass through uncached. API v1 stays on the API URL: no API key
 * goes through a cache, and anything else reaching the CDN goes to the origin uncached and
 * without an Authorization header (docs/decisions.md, "The CDN").
 */
export class CdnStack extends Stack {
  readonly distribution: Distribution;

  constructor(scope: Construct, id: string, props: CdnStackProps) {
    super(scope, id, props);
    const { settings } = props;
    // https://<id>.execute-api.<region>.amazonaws.com → the host name; the API's stage is $default (no path).
    const apiHost = Fn.select(2, Fn.split('/', props.api.apiEndpoint));
    const origin = new HttpOrigin(apiHost, {
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [OriginSslPolicy.TLS_V1_2],
      // Every edge asks this one cache, in the API's region, instead of the origin: a page asks
      // the API at most once per max-age window, however many edges serve it.
      originShieldRegion: this.region,
      // Tells the API this request came through CloudFront, so its X-Forwarded-For names the
      // visitor (shared/http/client-address.ts); CloudFront overwrites a viewer's own.
      customHeaders: { [CDN_ORIGIN_HEADER]: props.originSecret.secretValue.unsafeUnwrap() },
    });

    const publicCache = (name: string, queryStrings: readonly string[]) =>
      new CachePolicy(this, `${name}CachePolicy`, {
        comment: `Pricing ${settings.stage}: ${name.toLowerCase()} reads, cached as the origin's Cache-Control says`,
        // No Cache-Control, no caching; otherwise the origin's max-age, up to a day.
        minTtl: Duration.seconds(0),
        defaultTtl: Duration.seconds(0),
        maxTtl: CDN_MAX_TTL,
        queryStringBehavior:
          queryStrings.length > 0
            ? CacheQueryStringBehavior.allowList(...queryStrings)
            : CacheQueryStringBehavior.none(),
        // No header and no cookie in the key: the answers are the same for every visitor
        // (CORS is `*`), and Authorization is never part of a public read.
        enableAcceptEncodingGzip: true,
        enableAcceptEncodingBrotli: true,
      });
    const cached = (policy: CachePolicy) => ({
      origin,
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: AllowedMethods.ALLOW_GET_HEAD_OPTIONS,
      cachedMethods: CachedMethods.CACHE_GET_HEAD,
      cachePolicy: policy,
      compress: true,
    });
    // What is not cached still goes through a policy whose codings are on: CachingDisabled's are
    // off, and then CloudFront neither forwards Accept-Encoding nor compresses, so a coded answer
    // never reaches the viewer. TTL 0 unless the origin asks (CloudFront codes nothing under a
    // policy whose every TTL is 0); these answers say `no-store` or nothing, so none is kept.
    // Every query string in the key, so were the origin to allow a second's caching, no two
    // requests would share an answer.
    const uncachedPolicy = new CachePolicy(this, 'UncachedCachePolicy', {
      comment: `Pricing ${settings.stage}: uncached answers, coded as the viewer accepts`,
      minTtl: Duration.seconds(0),
      defaultTtl: Duration.seconds(0),
      maxTtl: UNCACHED_MAX_TTL,
      queryStringBehavior: CacheQueryStringBehavior.all(),
      enableAcceptEncodingGzip: true,
      enableAcceptEncodingBrotli: true,
    });
    const readPolicy = publicCache('PublicRead', []);
    const sharePolicy = publicCache('Share', cachedPaths['/api/share/*']);
    const demoPolicy = publicCache('Demo', cachedPaths['/demo/*']);
    const passThrough = {
      origin,
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      cachePolicy: uncachedPolicy,
      // Every viewer header (Idempotency-Key, Content-Type, Origin) and the query string; the
      // Host stays the API's own, which API Gateway routes by.
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      compress: true,
    };

    this.distribution = new Distribution(this, 'Distribution', {
      comment: `Pricing ${settings.stage}: public share data, widget and demo`,
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_ALL,
      // Anything else (API v1, unknown paths) reaches the origin uncached, with no viewer
      // header: an API key sent here is not forwarded, so v1 answers 401 (use the API URL).
      defaultBehavior: {
        origin,
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD_OPTIONS,
        cachePolicy: uncachedPolicy,
        compress: true,
      },
      // In order of precedence: the views' pass-through before the share data's cache.
      additionalBehaviors: {
        ...Object.fromEntries(passThroughPaths.map((path) => [path, passThrough])),
        '/api/share/*': cached(sharePolicy),
        '/widget.js': cached(readPolicy),
        '/openapi.json': cached(readPolicy),
        '/demo/*': cached(demoPolicy),
      },
    });

    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason: 'Pricing pages are embedded on customers’ sites worldwide: no country is refused.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'Public, cached reads in front of a throttled API Gateway stage; a WAF web ACL is an account decision (cost, rules) and attaches without a code change.',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          'Every request that reaches the origin is in the API access log; cache hits are counted in CloudFront metrics. Standard logs need an S3 log bucket, an account decision.',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          'The distribution uses the default *.cloudfront.net certificate, whose viewer TLS policy CloudFront fixes; a custom domain with its own certificate sets TLSv1.2_2021.',
      },
    );

    new CfnOutput(this, 'CdnUrl', {
      value: `https://${this.distribution.distributionDomainName}`,
      description: 'Base URL of the public read path: widget.js, the share data, the demo page (and payments)',
    });
  }
}
