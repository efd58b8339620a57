import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type App, Aspects, Stack } from 'aws-cdk-lib';
import { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks, NagSuppressions } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { SHARE_PATH_FUNCTION, VIEWER_ADDRESS_FUNCTION, WebHosting } from '../../cdk/constructs/web-hosting.ts';
import { ShroudStack } from '../../cdk/stack.ts';
import { WEB_POLICY } from '../../lib/web/bundle.ts';
import { testApp } from '../support/cdk.ts';

/**
 * The browser terminal's hosting (cdk/constructs/web-hosting.ts) in a stack of its own with the
 * asset really built (the site's esbuild bundle runs at synth, as `cdk synth` does), cdk-nag's
 * AwsSolutions pack applied; then its wiring into the Shroud stack (the public base URL).
 */
// AWS's managed policies, by their fixed ids.
const CACHING_OPTIMIZED = '658327ea-f89d-4fab-a63d-7e88639e58f6';
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

let app: App;
let stack: Stack;
let t: Template;
beforeAll(() => {
  app = testApp({ context: { stage: 'ci' } });
  stack = new Stack(app, 'Web-ci');
  const api = new HttpApi(stack, 'Api');
  // The API's access logs are the Shroud stack's business, not this construct's.
  NagSuppressions.addResourceSuppressions(api, [{ id: 'AwsSolutions-APIG1', reason: 'A bare API for this test; the Shroud stack logs its API.' }], true);
  const accessLogs = new Bucket(stack, 'AccessLogs', { enforceSSL: true });
  new WebHosting(stack, 'Web', { stage: 'ci', api, accessLogs });
  Aspects.of(app).add(new AwsSolutionsChecks());
  t = Template.fromStack(stack);
}, 120_000);

const distribution = () => Object.values(t.findResources('AWS::CloudFront::Distribution'))[0] as { Properties: { DistributionConfig: Record<string, any> } };

describe('the browser terminal on S3 + CloudFront', () => {
  it('keeps the site bucket private: public access blocked, TLS only, readable by the distribution alone (OAC)', () => {
    const [siteId, ...more] = Object.keys(t.findResources('AWS::S3::Bucket', { Properties: { LoggingConfiguration: { LogFilePrefix: 'web/' } } }));
    expect(siteId).toMatch(/^WebSite/);
    expect(more).toEqual([]);
    t.hasResourceProperties('AWS::S3::Bucket', {
      BucketName: { 'Fn::Join': ['', ['shroud-ci-web-', { Ref: 'AWS::AccountId' }]] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      BucketEncryption: Match.anyValue(),
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'web/' }),
    });
    t.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: { OriginAccessControlOriginType: 's3', SigningBehavior: 'always', SigningProtocol: 'sigv4', Name: Match.anyValue() },
    });
    const policies = Object.values(t.findResources('AWS::S3::BucketPolicy', { Properties: { Bucket: { Ref: siteId } } })) as {
      Properties: { PolicyDocument: { Statement: any[] } };
    }[];
    const allows = policies.flatMap((p) => p.Properties.PolicyDocument.Statement).filter((s) => s.Effect === 'Allow');
    // Only CloudFront, only this distribution (by its ARN), only reading objects.
    const reads = allows.filter((s) => s.Principal?.Service === 'cloudfront.amazonaws.com');
    expect(reads).toHaveLength(1);
    expect(reads[0].Action).toBe('s3:GetObject');
    expect(JSON.stringify(reads[0].Condition)).toMatch(/AWS:SourceArn.*distribution/);
    expect(allows.every((s) => s.Principal !== '*' && s.Principal?.AWS !== '*')).toBe(true);
  });

  it('serves the site by default (cached, HTTPS) and forwards /api/* to the HTTP API uncached with cookies, headers and query', () => {
    const c = distribution().Properties.DistributionConfig;
    expect(c.DefaultRootObject).toBe('index.html');
    expect(c.ViewerCertificate ?? {}).toBeDefined();
    expect(c.Logging).toEqual(expect.objectContaining({ Prefix: 'cloudfront/' }));
    expect(c.DefaultCacheBehavior).toEqual(
      expect.objectContaining({ ViewerProtocolPolicy: 'redirect-to-https', CachePolicyId: CACHING_OPTIMIZED, AllowedMethods: ['GET', 'HEAD'], Compress: true }),
    );
    expect(c.CacheBehaviors).toHaveLength(2);
    const api = c.CacheBehaviors.find((b: { PathPattern: string }) => b.PathPattern === '/api/*');
    expect(api.PathPattern).toBe('/api/*');
    expect(api.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect([...api.AllowedMethods].sort()).toEqual(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT']);
    expect(api.CachePolicyId).toBe(CACHING_DISABLED);
    expect(api.OriginRequestPolicyId).toBe(ALL_VIEWER_EXCEPT_HOST_HEADER);
    expect(api.ResponseHeadersPolicyId).toEqual(c.DefaultCacheBehavior.ResponseHeadersPolicyId);

    const origins = c.Origins as Record<string, any>[];
    const s3 = origins.find((o) => o.S3OriginConfig)!;
    expect(s3.OriginAccessControlId).toEqual({ 'Fn::GetAtt': [expect.any(String), 'Id'] });
    expect(s3.S3OriginConfig.OriginAccessIdentity ?? '').toBe('');
    const custom = origins.find((o) => o.CustomOriginConfig)!;
    expect(custom.CustomOriginConfig).toEqual(expect.objectContaining({ OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] }));
    // The origin is the API's own execute-api host (its id, the region, the URL suffix).
    expect(JSON.stringify(custom.DomainName)).toMatch(/"Ref":"Api[0-9A-F]+".*execute-api/);
    expect(custom.Id).not.toBe(s3.Id);
    expect(c.DefaultCacheBehavior.TargetOriginId).toBe(s3.Id);
    expect(api.TargetOriginId).toBe(custom.Id);
    // Share links: the site's share page from the same bucket, cached like the page it is.
    const share = c.CacheBehaviors.find((b: { PathPattern: string }) => b.PathPattern === '/share/*');
    expect(share).toEqual(
      expect.objectContaining({
        TargetOriginId: s3.Id,
        ViewerProtocolPolicy: 'redirect-to-https',
        CachePolicyId: CACHING_OPTIMIZED,
        AllowedMethods: ['GET', 'HEAD'],
      }),
    );
    expect(share.ResponseHeadersPolicyId).toEqual(c.DefaultCacheBehavior.ResponseHeadersPolicyId);
  });

  it('serves every /share/<token> as share.html: a viewer-request function rewriting the path, run here as CloudFront would', () => {
    const c = distribution().Properties.DistributionConfig;
    const share = c.CacheBehaviors.find((b: { PathPattern: string }) => b.PathPattern === '/share/*');
    const fns = t.findResources('AWS::CloudFront::Function', { Properties: { Name: 'shroud-ci-share-path' } });
    expect(Object.keys(fns)).toHaveLength(1);
    expect(share.FunctionAssociations).toEqual([{ EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [Object.keys(fns)[0], 'FunctionARN'] } }]);
    const handler = new Function(`${SHARE_PATH_FUNCTION}; return handler;`)() as (event: unknown) => { uri: string; querystring: unknown };
    const out = handler({ request: { method: 'GET', uri: `/share/${'A'.repeat(43)}`, querystring: { x: { value: '1' } }, headers: {} } });
    expect(out.uri).toBe('/share.html');
    expect(out.querystring).toEqual({ x: { value: '1' } });
  });

  it('adds the security headers: the page CSP (kept when an origin sends its own), HSTS, frame-deny, nosniff', () => {
    t.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: Match.objectLike({
        SecurityHeadersConfig: Match.objectLike({
          ContentSecurityPolicy: { ContentSecurityPolicy: WEB_POLICY, Override: false },
          StrictTransportSecurity: { AccessControlMaxAgeSec: 63_072_000, IncludeSubdomains: true, Override: true },
          FrameOptions: { FrameOption: 'DENY', Override: true },
          ContentTypeOptions: { Override: true },
        }),
      }),
    });
    // What xterm.js and the in-page proving need, and nothing from elsewhere.
    expect(WEB_POLICY).toContain("script-src 'self' 'wasm-unsafe-eval' blob:");
    expect(WEB_POLICY).toContain("frame-ancestors 'none'");
    expect(WEB_POLICY).not.toMatch(/https?:/);
  });

  it('deploys the hashed assets with a year of cache, then the page with none (and invalidates it)', () => {
    const deployments = Object.values(t.findResources('Custom::CDKBucketDeployment')) as { Properties: Record<string, any>; DependsOn?: string[] }[];
    expect(deployments).toHaveLength(2);
    const assets = deployments.find((d) => JSON.stringify(d.Properties.Include) === '["web/*"]')!;
    const page = deployments.find((d) => JSON.stringify(d.Properties.Include) === '["index.html","share.html","favicon.ico"]')!;
    expect(assets.Properties.Exclude).toEqual(['*']);
    expect(assets.Properties.Prune).toBe(false);
    expect(assets.Properties.SystemMetadata['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(page.Properties.SystemMetadata['cache-control']).toBe('no-cache');
    expect(page.Properties.DistributionPaths).toEqual(['/', '/index.html', '/share.html', '/favicon.ico', '/share/*']);
    expect(page.Properties.DistributionId).toEqual({ Ref: expect.stringMatching(/^WebDistribution/) });
    // The page goes up after the assets it names.
    expect(JSON.stringify(page.DependsOn ?? [])).toMatch(/WebDeployAssets/);
    // One asset, built once, for both.
    expect(page.Properties.SourceObjectKeys).toEqual(assets.Properties.SourceObjectKeys);
    t.hasOutput('WebUrl', { Value: { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [Match.stringLikeRegexp('^WebDistribution'), 'DomainName'] }]] } });
  });

  it('builds the site at synth: the page names its content-hashed script and style sheet, which are there', () => {
    const out = app.synth().directory;
    const dirs = readdirSync(out).filter((d) => d.startsWith('asset.') && statSync(join(out, d)).isDirectory() && existsSync(join(out, d, 'index.html')));
    expect(dirs).toHaveLength(1);
    const root = join(out, dirs[0]!);
    const html = readFileSync(join(root, 'index.html'), 'utf8');
    const script = /<script type="module" src="\/(web\/terminal\.[0-9a-f]{16}\.js)">/.exec(html)?.[1];
    const css = /<link rel="stylesheet" href="\/(web\/xterm\.[0-9a-f]{16}\.css)">/.exec(html)?.[1];
    expect(script && css).toBeTruthy();
    const share = /<script type="module" src="\/(web\/share\.[0-9a-f]{16}\.js)">/.exec(readFileSync(join(root, 'share.html'), 'utf8'))?.[1];
    expect(share).toBeTruthy();
    expect(readdirSync(join(root, 'web')).sort()).toEqual([css!.slice(4), script!.slice(4), share!.slice(4)].sort());
    expect(readFileSync(join(root, script!), 'utf8')).toContain('xterm');
    expect(readFileSync(join(root, css!), 'utf8')).toContain('.xterm');
    expect(readFileSync(join(root, share!), 'utf8')).toContain('/api/storage/shared/');
    expect(readFileSync(join(root, 'favicon.ico')).readUInt16LE(2)).toBe(1); // an icon
  });

  it("tells the API the viewer's address: a viewer-request function on /api/* only, and the origin secret as a dynamic reference", () => {
    const c = distribution().Properties.DistributionConfig;
    const [fnId, ...others] = Object.keys(t.findResources('AWS::CloudFront::Function', { Properties: { Name: 'shroud-ci-viewer-address' } }));
    expect(others).toEqual([]);
    t.hasResourceProperties('AWS::CloudFront::Function', {
      Name: 'shroud-ci-viewer-address',
      AutoPublish: true,
      FunctionConfig: Match.objectLike({ Runtime: 'cloudfront-js-2.0' }),
      FunctionCode: VIEWER_ADDRESS_FUNCTION,
    });
    expect(c.CacheBehaviors.find((b: { PathPattern: string }) => b.PathPattern === '/api/*').FunctionAssociations).toEqual([
      { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [fnId, 'FunctionARN'] } },
    ]);
    expect(c.DefaultCacheBehavior.FunctionAssociations ?? []).toEqual([]);

    // The API origin (only) sends the secret: a {{resolve:secretsmanager:...}} of the generated secret.
    const origins = c.Origins as Record<string, any>[];
    const custom = origins.find((o) => o.CustomOriginConfig)!;
    expect(custom.OriginCustomHeaders).toHaveLength(1);
    expect(custom.OriginCustomHeaders[0].HeaderName).toBe('x-shroud-origin-secret');
    const [secretId, ...moreSecrets] = Object.keys(t.findResources('AWS::SecretsManager::Secret'));
    expect(moreSecrets).toEqual([]);
    expect(custom.OriginCustomHeaders[0].HeaderValue).toEqual({ 'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: secretId }, ':SecretString:::}}']] });
    expect(origins.find((o) => o.S3OriginConfig)!.OriginCustomHeaders ?? []).toEqual([]);
    t.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({ PasswordLength: 64, ExcludePunctuation: true, IncludeSpace: false }),
      SecretString: Match.absent(),
    });
  });

  it("runs a viewer-request function that overwrites the address header with the viewer's, whatever the client sent", () => {
    // The function's own source, run as CloudFront would call it (cloudfront-js-2.0 is ES5-compatible JavaScript).
    const handler = new Function(`${VIEWER_ADDRESS_FUNCTION}; return handler;`)() as (event: unknown) => { headers: Record<string, { value: string }> };
    const out = handler({
      viewer: { ip: '2001:db8::42' },
      request: { method: 'POST', uri: '/api/auth/login', headers: { 'x-shroud-viewer-address': { value: '10.0.0.1' }, accept: { value: '*/*' } } },
    });
    expect(out.headers['x-shroud-viewer-address']).toEqual({ value: '2001:db8::42' });
    expect(out.headers.accept).toEqual({ value: '*/*' });
  });

  it('passes cdk-nag AwsSolutions with only explained suppressions', () => {
    const errors = Annotations.fromStack(stack).findError('*', Match.stringLikeRegexp('AwsSolutions-.*'));
    expect(errors.map((e) => `${e.id}: ${String(e.entry.data).slice(0, 160)}`)).toEqual([]);
  });
});

describe('the Shroud stack with the web hosting', () => {
  it('makes the distribution the public base URL of every function (OAuth callbacks on the page origin)', () => {
    const shroudApp = testApp({ context: { 'aws:cdk:bundling-stacks': [], stage: 'ci' } });
    const root = new ShroudStack(shroudApp, 'Shroud-ci', { stage: 'ci' });
    const json = JSON.stringify(Template.fromStack(root).toJSON());
    // Every nested group stack receives PUBLIC_BASE_URL from the distribution's domain.
    expect(json).toMatch(/"https:\/\/",\{"Fn::GetAtt":\["WebDistribution[0-9A-F]+","DomainName"\]\}/);
    Template.fromStack(root).hasOutput('WebUrl', Match.anyValue());
    expect(json).not.toMatch(/PUBLIC_BASE_URL[^}]*ApiEndpoint/);
  });

  it('gives every API function the origin secret as a dynamic reference, never its value; the scheduled jobs not at all', () => {
    const shroudApp = testApp({ context: { 'aws:cdk:bundling-stacks': [], stage: 'ci' } });
    const root = new ShroudStack(shroudApp, 'Shroud-ci', { stage: 'ci' });
    const nested = root.node.children.filter((c): c is Stack => c instanceof Stack).map((s) => Template.fromStack(s));
    expect(nested.length).toBeGreaterThan(5);
    let functions = 0;
    for (const group of nested) {
      for (const [id, fn] of Object.entries(group.findResources('AWS::Lambda::Function')) as [
        string,
        { Properties: { Environment?: { Variables?: Record<string, unknown> } } },
      ][]) {
        const value = fn.Properties.Environment?.Variables?.CLOUDFRONT_ORIGIN_SECRET;
        expect(value, id).toEqual({ 'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: expect.any(String) }, ':SecretString:::}}']] });
        functions++;
      }
    }
    expect(functions).toBeGreaterThan(20);
    const rootTemplate = Template.fromStack(root);
    for (const fn of Object.values(rootTemplate.findResources('AWS::Lambda::Function')) as {
      Properties: { Environment?: { Variables?: Record<string, unknown> } };
    }[]) {
      expect(fn.Properties.Environment?.Variables?.CLOUDFRONT_ORIGIN_SECRET).toBeUndefined();
    }
    // Nowhere a literal: the one secret is generated by Secrets Manager at deploy.
    const everything = JSON.stringify([rootTemplate.toJSON(), ...nested.map((n) => n.toJSON())]);
    expect(everything).not.toMatch(/"CLOUDFRONT_ORIGIN_SECRET":"/);
    expect(everything).not.toMatch(/"HeaderValue":"/);
  });
});
