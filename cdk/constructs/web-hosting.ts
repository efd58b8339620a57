import { join } from 'node:path';
import { AssetHashType, CfnOutput, DockerImage, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
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
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, type IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { ORIGIN_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from '../../lib/http/client-address.ts';
import { WEB_POLICY } from '../../lib/web/bundle.ts';
import { ASSET_PREFIX, INDEX, PAGES, SHARE_PAGE } from '../../lib/web/site.ts';
import { builtSite, copyTree, repoRoot } from '../function-bundles.ts';

export interface WebHostingProps {
  stage: string;
  /** The HTTP API that `/api/*` forwards to. */
  api: IHttpApi;
  /** Where the buckets' server access logs go. */
  accessLogs: IBucket;
}

/**
 * The browser terminal on AWS, on one origin with the API: a CloudFront distribution whose
 * default behaviour serves the static site from a private S3 bucket (origin access control), whose
 * `/share/*` behaviour serves the share page from it for every token, and whose `/api/*` behaviour forwards everything to the HTTP API uncached, so the page's requests
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
  /**
   * What the API's functions need to believe the viewer's address (lib/http/client-address.ts):
   * `CLOUDFRONT_ORIGIN_SECRET` as a CloudFormation dynamic reference to the generated secret,
   * resolved by CloudFormation at deploy, never a plain value in the template.
   */
  readonly apiEnvironment: Record<string, string>;

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

    // The viewer's address for the API's per-address rate limits: API Gateway's sourceIp is the
    // edge's. The function overwrites whatever a client sent in the header; the origin's secret
    // header tells the API that the request came through this distribution (the execute-api
    // endpoint stays public, where the address header alone could be forged).
    const viewerAddress = new CloudFrontFunction(this, 'ViewerAddress', {
      functionName: `shroud-${stage}-viewer-address`,
      comment: `Sets ${VIEWER_ADDRESS_HEADER} to the viewer's address for /api/*`,
      runtime: FunctionRuntime.JS_2_0,
      code: FunctionCode.fromInline(VIEWER_ADDRESS_FUNCTION),
    });
    const originSecret = new Secret(this, 'OriginSecret', {
      description: `Shroud ${stage}: sent by CloudFront to the API as ${ORIGIN_SECRET_HEADER}`,
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const originSecretValue = originSecret.secretValue.unsafeUnwrap(); // a {{resolve:secretsmanager:...}} reference
    this.apiEnvironment = { CLOUDFRONT_ORIGIN_SECRET: originSecretValue };

    // Every share link (`/share/<token>`) is the one share page: its script reads the token from
    // the address, which the viewer keeps (only the origin request's path changes).
    const sharePath = new CloudFrontFunction(this, 'SharePath', {
      functionName: `shroud-${stage}-share-path`,
      comment: `Serves /${SHARE_PAGE} for /share/*`,
      runtime: FunctionRuntime.JS_2_0,
      code: FunctionCode.fromInline(SHARE_PATH_FUNCTION),
    });

    const apiOrigin = new HttpOrigin(apiHostOf(props.api), {
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [OriginSslPolicy.TLS_V1_2],
      readTimeout: Duration.seconds(30),
      customHeaders: { [ORIGIN_SECRET_HEADER]: originSecretValue },
    });

    const siteOrigin = S3BucketOrigin.withOriginAccessControl(site);
    // The site's pages and the share page: one behaviour (the share page adds its path rewrite).
    const siteBehavior = {
      origin: siteOrigin,
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
      cachePolicy: CachePolicy.CACHING_OPTIMIZED,
      responseHeadersPolicy: securityHeaders,
      compress: true,
    };
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `Shroud ${stage}: the browser terminal and /api/*`,
      defaultRootObject: INDEX,
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
      enableLogging: true,
      logBucket: cdnLogs,
      logFilePrefix: 'cloudfront/',
      defaultBehavior: siteBehavior,
      additionalBehaviors: {
        '/share/*': {
          ...siteBehavior,
          functionAssociations: [{ function: sharePath, eventType: FunctionEventType.VIEWER_REQUEST }],
        },
        '/api/*': {
          origin: apiOrigin,
          viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          // Cookies, query strings and headers reach the API; Host stays API Gateway's own.
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: securityHeaders,
          compress: true,
          functionAssociations: [{ function: viewerAddress, eventType: FunctionEventType.VIEWER_REQUEST }],
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
        local: { tryBundle: (outputDir) => (copyTree(builtSite(), outputDir), true) },
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
      include: PAGES,
      exclude: ['*'],
      prune: false,
      cacheControl: [CacheControl.noCache()],
      distribution: this.distribution,
      // The share page is cached under its rewritten path; `/share/*` covers the viewers' paths too.
      distributionPaths: ['/', ...PAGES.map((p) => `/${p}`), '/share/*'],
      memoryLimit: 512,
    });
    page.node.addDependency(assets);

    new CfnOutput(Stack.of(this), 'WebUrl', { value: this.url, description: 'The browser terminal and the API (/api/*), one origin' });

    NagSuppressions.addResourceSuppressions(
      this,
      [
        { id: 'AwsSolutions-CFR1', reason: 'A public product: no geographic restriction.' },
        {
          id: 'AwsSolutions-CFR2',
          reason: "No WAF yet: rate limits are the API's own (lib/http), per viewer address through the viewer-request function and the origin secret.",
        },
        {
          id: 'AwsSolutions-SMG4',
          reason:
            'The origin secret is resolved into CloudFront and the functions at deploy (dynamic references): rotation means a redeploy, by replacing the secret (README).',
        },
        {
          id: 'AwsSolutions-CFR4',
          reason:
            'The default *.cloudfront.net certificate: CloudFront then allows TLSv1 whatever the minimum; a custom domain with its certificate gets TLS_V1_2_2021.',
        },
      ],
      true,
    );
    // BucketDeployment's handler is a stack-level singleton (CDK's own Lambda with the AWS CLI layer).
    for (const handler of Stack.of(this).node.children.filter((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'))) {
      NagSuppressions.addResourceSuppressions(
        handler,
        [
          {
            id: 'AwsSolutions-IAM4',
            reason: "CDK's BucketDeployment handler uses AWSLambdaBasicExecutionRole for its own logs; its S3 rights are the two buckets' grants.",
          },
          {
            id: 'AwsSolutions-IAM5',
            reason:
              "CDK's grants for the copy: objects of the CDK asset bucket and of the site bucket, and cloudfront:CreateInvalidation (which takes no resource).",
          },
          { id: 'AwsSolutions-L1', reason: "CDK's BucketDeployment handler: its runtime is pinned by aws-cdk-lib, upgraded with it." },
        ],
        true,
      );
    }
  }
}

/**
 * The viewer-request function of `/api/*` (CloudFront Functions, cloudfront-js-2.0): the viewer's
 * address, as CloudFront saw the connection, in a header of our own, replacing any the client sent.
 */
export const VIEWER_ADDRESS_FUNCTION = `function handler(event) {
  var request = event.request;
  request.headers['${VIEWER_ADDRESS_HEADER}'] = { value: event.viewer.ip };
  return request;
}`;

/** The viewer-request function of `/share/*`: the share page's object for every token. */
export const SHARE_PATH_FUNCTION = `function handler(event) {
  var request = event.request;
  request.uri = '/${SHARE_PAGE}';
  return request;
}`;

/** The API's host name as a CloudFormation expression (the endpoint is a token at synth). */
function apiHostOf(api: IHttpApi): string {
  return `${api.apiId}.execute-api.${Stack.of(api).region}.${Stack.of(api).urlSuffix}`;
}
