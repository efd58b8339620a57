import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { AssetHashType, CfnOutput, DockerImage, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, type IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { WEB_POLICY } from '../../lib/web/bundle.ts';
import { ASSET_PREFIX, INDEX } from '../../lib/web/site.ts';
import { repoRoot } from './api-function.ts';

export interface WebHostingProps {
  stage: string;
  /** The HTTP API that `/api/*` forwards to. */
  api: IHttpApi;
  /** Where the buckets' server access logs go. */
  accessLogs: IBucket;
}

/**
 * The browser terminal on AWS, on one origin with the API: a CloudFront distribution whose
 * default behaviour serves the static site from a private S3 bucket (origin access control) and
 * whose `/api/*` behaviour forwards everything to the HTTP API uncached, so the page's requests
 * and the session cookie stay same-origin. The site is built at synth time by lib/web/site.ts (the
 * same esbuild bundle the local runtime serves): content-hashed assets cached for a year, the
 * page `no-cache` (revalidated; the edge keeps it at most the policy's 1 s minimum) and invalidated
 * at each deploy. Security headers (the page's CSP, HSTS, frame-deny) come from a response
 * headers policy; an origin's own CSP (the API reference page) is kept.
 */
export class WebHosting extends Construct {
  readonly distribution: Distribution;
  /** `https://<id>.cloudfront.net`: the public base URL of the page and the API. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: WebHostingProps) {
    super(scope, id);
    const { stage } = props;
    const account = Stack.of(this).account;

    const site = new Bucket(this, 'Site', {
      bucketName: `shroud-${stage}-web-${account}`,
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      serverAccessLogsBucket: props.accessLogs,
      serverAccessLogsPrefix: 'web/',
      // Built artifacts, rebuilt from the repository at every deploy.
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: false,
    });
    // CloudFront standard logging writes with ACLs: its own bucket, object-writer ownership.
    const cdnLogs = new Bucket(this, 'CdnLogs', {
      bucketName: `shroud-${stage}-cdn-logs-${account}`,
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.OBJECT_WRITER,
      enforceSSL: true,
      serverAccessLogsBucket: props.accessLogs,
      serverAccessLogsPrefix: 'cdn-logs/',
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const securityHeaders = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      responseHeadersPolicyName: `shroud-${stage}-security-headers`,
      comment: 'The browser terminal: its CSP (xterm.js, wasm proving), HSTS, no framing',
      securityHeadersBehavior: {
        // override false: an origin's own policy (the API reference page's) stays.
        contentSecurityPolicy: { contentSecurityPolicy: WEB_POLICY, override: false },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(730), includeSubdomains: true, override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        contentTypeOptions: { override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN, override: true },
      },
    });

    const apiOrigin = new HttpOrigin(apiHostOf(props.api), {
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [OriginSslPolicy.TLS_V1_2],
      readTimeout: Duration.seconds(30),
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: `Shroud ${stage}: the browser terminal and /api/*`,
      defaultRootObject: INDEX,
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
      enableLogging: true,
      logBucket: cdnLogs,
      logFilePrefix: 'cloudfront/',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(site),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: securityHeaders,
        compress: true,
      },
      additionalBehaviors: {
        '/api/*': {
          origin: apiOrigin,
          viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          // Cookies, query strings and headers reach the API; Host stays API Gateway's own.
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: securityHeaders,
          compress: true,
        },
      },
    });
    this.url = `https://${this.distribution.distributionDomainName}`;

    // The site's files, built once per synth into the asset (hash of the output: an unchanged
    // build is not uploaded again). Two deployments of the same asset: the hashed assets first
    // (cached a year, old ones kept for pages still open), then the page (never cached).
    const files = Source.asset(join(repoRoot, 'lib', 'web'), {
      assetHashType: AssetHashType.OUTPUT,
      bundling: {
        image: DockerImage.fromRegistry('unused-local-bundling-only'),
        local: { tryBundle: (outputDir) => (buildSite(outputDir), true) },
      },
    });
    const assets = new BucketDeployment(this, 'DeployAssets', {
      sources: [files],
      destinationBucket: site,
      include: [`${ASSET_PREFIX}*`],
      exclude: ['*'],
      prune: false,
      cacheControl: [CacheControl.setPublic(), CacheControl.maxAge(Duration.days(365)), CacheControl.immutable()],
      memoryLimit: 512,
    });
    const page = new BucketDeployment(this, 'DeployPage', {
      sources: [files],
      destinationBucket: site,
      include: [INDEX],
      exclude: ['*'],
      prune: false,
      cacheControl: [CacheControl.noCache()],
      distribution: this.distribution,
      distributionPaths: ['/', `/${INDEX}`],
      memoryLimit: 512,
    });
    page.node.addDependency(assets);

    new CfnOutput(Stack.of(this), 'WebUrl', { value: this.url, description: 'The browser terminal and the API (/api/*), one origin' });

    NagSuppressions.addResourceSuppressions(
      this,
      [
        { id: 'AwsSolutions-CFR1', reason: 'A public product: no geographic restriction.' },
        { id: 'AwsSolutions-CFR2', reason: 'No WAF yet: rate limits are the API\'s own (lib/http); see the README on addresses behind CloudFront.' },
        { id: 'AwsSolutions-CFR4', reason: 'The default *.cloudfront.net certificate: CloudFront then allows TLSv1 whatever the minimum; a custom domain with its certificate gets TLS_V1_2_2021.' },
      ],
      true,
    );
    // BucketDeployment's handler is a stack-level singleton (CDK's own Lambda with the AWS CLI layer).
    for (const handler of Stack.of(this).node.children.filter((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'))) {
      NagSuppressions.addResourceSuppressions(
        handler,
        [
          { id: 'AwsSolutions-IAM4', reason: "CDK's BucketDeployment handler uses AWSLambdaBasicExecutionRole for its own logs; its S3 rights are the two buckets' grants." },
          { id: 'AwsSolutions-IAM5', reason: "CDK's grants for the copy: objects of the CDK asset bucket and of the site bucket, and cloudfront:CreateInvalidation (which takes no resource)." },
          { id: 'AwsSolutions-L1', reason: "CDK's BucketDeployment handler: its runtime is pinned by aws-cdk-lib, upgraded with it." },
        ],
        true,
      );
    }
  }
}

/** The API's host name as a CloudFormation expression (the endpoint is a token at synth). */
function apiHostOf(api: IHttpApi): string {
  return `${api.apiId}.execute-api.${Stack.of(api).region}.${Stack.of(api).urlSuffix}`;
}

/** Runs cdk/build-web-site.ts in a child (synth is synchronous, the esbuild build is not). */
function buildSite(outputDir: string): void {
  const out = spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'cdk', 'build-web-site.ts'), outputDir], {
    cwd: repoRoot,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (out.status !== 0) throw new Error(`building the browser terminal's site failed (${out.error?.message ?? `exit ${out.status}`})`);
}
