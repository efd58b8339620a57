import { Aspects, NestedStack, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyRehearsal, REHEARSAL_CONTEXT } from '../../cdk/rehearsal.ts';
import { ShroudStack } from '../../cdk/stack.ts';
import { routes } from '../../functions/routes.ts';
import { jobs, scheduledJobs } from '../../functions/jobs.ts';
import { basename } from 'node:path';
import { testApp } from '../support/cdk.ts';

/**
 * The stack as `cdk synth -c stage=ci` builds it, minus the esbuild bundling (the
 * `aws:cdk:bundling-stacks` context set to none), with cdk-nag's AwsSolutions pack applied.
 */
let root: ShroudStack;
let nested: NestedStack[];
const templates = new Map<Stack, Template>();
/** CDK's own BucketDeployment handler (a Python Lambda and its role) that uploads the browser terminal's site. */
const cdkProvided = (logicalId: string) => logicalId.startsWith('CustomCDKBucketDeployment');
const ours = (resources: Record<string, unknown>) =>
  Object.entries(resources)
    .filter(([id]) => !cdkProvided(id))
    .map(([, r]) => r);

beforeAll(() => {
  process.env.CDK_VALIDATION = 'false';
  const app = testApp({ context: { 'aws:cdk:bundling-stacks': [], stage: 'ci' } });
  root = new ShroudStack(app, 'Shroud-ci', { stage: 'ci' });
  Aspects.of(app).add(new AwsSolutionsChecks());
  nested = root.node.children.filter((c): c is NestedStack => c instanceof NestedStack);
  // Template.fromStack synthesizes, which also runs the nag aspect over every stack.
  for (const s of [root, ...nested]) templates.set(s, Template.fromStack(s));
});

describe('the CDK stack', () => {
  it('makes one Lambda function per row of the route table, plus the $default fallback and the scheduled functions (sweeper and its full pass, transfer retry, reward accrual retry, reward epochs, bridge relayer)', () => {
    let functions = 0;
    const handlers: string[] = [];
    for (const t of templates.values()) {
      const fns = ours(t.findResources('AWS::Lambda::Function'));
      functions += fns.length;
      for (const f of fns) handlers.push((f as { Properties: { FunctionName: string } }).Properties.FunctionName);
    }
    // streaming routes (`stream`) have a second, function-URL function (cdk/ai.ts)
    expect(functions).toBe(routes.length + 7 + routes.filter((r) => r.stream).length);
    expect(new Set(handlers).size).toBe(functions);
    expect(handlers.every((n) => n.startsWith('shroud-ci-'))).toBe(true);
  });

  it("names as each function's handler its own module in its group's asset (cdk/function-bundles.ts): `quote.handler`, not a shared `index`", () => {
    const moduleOf = (entry: string) => basename(entry).replace(/\.ts$/, '');
    const handlers = new Set<string>();
    for (const t of templates.values()) {
      for (const f of ours(t.findResources('AWS::Lambda::Function'))) handlers.add((f as { Properties: { Handler: string } }).Properties.Handler);
    }
    const expected = new Set([
      ...routes.map((r) => `${moduleOf(r.handler)}.handler`),
      ...routes.filter((r) => r.stream).map((r) => `${moduleOf(r.handler)}.streamHandler`),
      'fallback.handler',
      ...jobs.map((j) => `${moduleOf(j.handler)}.handler`),
    ]);
    for (const r of routes) expect(handlers).toContain(`${moduleOf(r.handler)}.handler`);
    expect([...handlers].filter((h) => !expected.has(h))).toEqual([]);
  });

  it('gives every route an API Gateway route with the same method and path', () => {
    const keys: string[] = [];
    for (const t of templates.values()) {
      for (const r of Object.values(t.findResources('AWS::ApiGatewayV2::Route'))) keys.push((r as { Properties: { RouteKey: string } }).Properties.RouteKey);
    }
    const expected = routes.map((r) => `${r.method} ${r.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`);
    expect(keys.sort()).toEqual([...expected, '$default'].sort());
  });

  it('runs every function on nodejs22.x, ARM64', () => {
    for (const t of templates.values()) {
      for (const f of ours(t.findResources('AWS::Lambda::Function'))) {
        const p = (f as { Properties: Record<string, unknown> }).Properties;
        expect(p.Runtime).toBe('nodejs22.x');
        expect(p.Architectures).toEqual(['arm64']);
      }
    }
  });

  it('has the table with TTL on `ttl`, the gsi1 index and point-in-time recovery', () => {
    templates.get(root)!.hasResourceProperties('AWS::DynamoDB::Table', {
      TableName: 'shroud-ci',
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      GlobalSecondaryIndexes: [Match.objectLike({ IndexName: 'gsi1' })],
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
  });

  it('has the circuits layer and the blocked, encrypted bucket', () => {
    const t = templates.get(root)!;
    t.resourceCountIs('AWS::Lambda::LayerVersion', 3); // + the AWS CLI layers of the web site's two BucketDeployments
    t.hasResourceProperties('AWS::Lambda::LayerVersion', { LayerName: 'shroud-ci-circuits' });
    t.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      BucketEncryption: Match.anyValue(),
    });
  });

  it('expires staged uploads and the parts of multipart uploads that died after a day', () => {
    templates.get(root)!.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({ Prefix: 'uploads/', ExpirationInDays: 1, Status: 'Enabled' }),
          Match.objectLike({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }),
        ]),
      },
    });
  });

  it('shares one role per route group', () => {
    const groups = new Set(routes.map((r) => r.group));
    let roles = 0;
    for (const t of templates.values()) roles += ours(t.findResources('AWS::IAM::Role')).length;
    expect(roles).toBe(groups.size + 7); // + the fallback's, the sweeper's (two passes), the transfer retry job's, the reward accrual retry job's, the reward epochs' and the bridge relayer's
  });

  it('runs the orphan sweeper every 15 minutes and a slice of its full pass hourly, from EventBridge rules (not routes)', () => {
    const t = templates.get(root)!;
    const scheduled = (name: string, rate: string, timeout: number) => {
      const [fnId] = Object.keys(t.findResources('AWS::Lambda::Function', { Properties: { FunctionName: name, Timeout: timeout } }));
      expect(fnId, name).toBeDefined();
      const rules = t.findResources('AWS::Events::Rule', {
        Properties: { ScheduleExpression: rate, State: 'ENABLED', Targets: Match.arrayWith([Match.objectLike({ Arn: { 'Fn::GetAtt': [fnId, 'Arn'] } })]) },
      });
      expect(Object.keys(rules), name).toHaveLength(1);
    };
    scheduled('shroud-ci-scheduled-sweep', 'rate(15 minutes)', 300);
    scheduled('shroud-ci-scheduled-sweep-full', 'rate(1 hour)', 900);
    t.hasResourceProperties('AWS::Lambda::Permission', { Principal: 'events.amazonaws.com' });
  });

  it('makes one function and EventBridge rule per scheduled row of functions/jobs.ts, on its period (the replica rows only with replicated pinning)', () => {
    const rate = (m: number) => (m % 60 === 0 ? `rate(${m / 60} hour${m === 60 ? '' : 's'})` : `rate(${m} minute${m === 1 ? '' : 's'})`);
    const t = templates.get(root)!;
    const byArn = new Map(
      Object.entries(t.findResources('AWS::Lambda::Function')).map(([id, f]) => [
        id,
        (f as { Properties: { FunctionName: string; Timeout: number } }).Properties,
      ]),
    );
    const ruled = Object.values(t.findResources('AWS::Events::Rule')).flatMap((r) => {
      const p = (r as { Properties: { ScheduleExpression: string; Targets: { Arn: { 'Fn::GetAtt': [string, string] } }[] } }).Properties;
      return p.Targets.map((x) => `${byArn.get(x.Arn['Fn::GetAtt'][0])!.FunctionName} ${p.ScheduleExpression} ${byArn.get(x.Arn['Fn::GetAtt'][0])!.Timeout}`);
    });
    const expected = scheduledJobs()
      .filter((j) => !j.grants.includes('replicas'))
      .map((j) => `shroud-ci-scheduled-${j.name} ${rate(j.trigger.everyMinutes)} ${j.timeoutSeconds}`);
    expect(ruled.sort()).toEqual(expected.sort());
  });

  it('runs the transfer retry job every minute from an EventBridge rule, with the wallet key', () => {
    const t = templates.get(root)!;
    t.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 minute)', State: 'ENABLED' });
    t.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'shroud-ci-scheduled-transfer-retry',
      Timeout: 55,
      Environment: { Variables: Match.objectLike({ WALLET_KMS_KEY_ID: Match.anyValue() }) },
    });
  });

  it('closes reward epochs hourly from an EventBridge rule (not a route)', () => {
    const t = templates.get(root)!;
    t.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 hour)', State: 'ENABLED' });
    t.hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'shroud-ci-scheduled-close-reward-epochs', Timeout: 300 });
    t.hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'shroud-ci-scheduled-rewards-retry', Timeout: 55 });
  });

  it('keeps every template far below the 500-resource limit', () => {
    for (const t of templates.values()) {
      expect(Object.keys(t.toJSON().Resources ?? {}).length).toBeLessThanOrEqual(450);
    }
  });

  it('outputs the API URL', () => {
    templates.get(root)!.hasOutput('ApiUrl', Match.anyValue());
  });

  it('passes cdk-nag AwsSolutions with only explained suppressions', () => {
    // Nested stacks report their annotations through the root stack's artifact.
    const errors = Annotations.fromStack(root).findError('*', Match.stringLikeRegexp('AwsSolutions-.*'));
    expect(errors.map((e) => `${e.id}: ${String(e.entry.data).slice(0, 120)}`)).toEqual([]);
    const meta = JSON.stringify(templates.get(root)!.toJSON().Metadata ?? {});
    for (const m of meta.matchAll(/"reason":"([^"]*)"/g)) expect(m[1]!.length).toBeGreaterThan(20);
  });

  it("gives the attest functions the issuer key's generated secret by ARN, readable by their role only", () => {
    const naming = [...templates].filter(([, t]) => JSON.stringify(t.toJSON()).includes('ATTEST_ISSUER_SECRET_ARN'));
    expect(naming.map(([s]) => s.node.id)).toEqual(['Attest']);
    expect(JSON.stringify(naming[0]![1].toJSON())).toContain('secretsmanager:GetSecretValue');
    const secrets = templates
      .get(root)!
      .findResources('AWS::SecretsManager::Secret', { Properties: { Description: Match.stringLikeRegexp('attestation issuer') } });
    expect(Object.keys(secrets)).toHaveLength(1);
  });

  it('refuses, as a synth error, a stage that names no chain A RPC (the embedded chain is in no bundle)', () => {
    const errors = Annotations.fromStack(root).findError('*', Match.stringLikeRegexp('CHAIN_A_RPC_URL'));
    expect(errors).toHaveLength(1);
  });
});

describe('deployment settings', () => {
  it('passes plain settings through and secrets only as dynamic references', () => {
    const app = testApp({
      context: {
        'aws:cdk:bundling-stacks': [],
        functionEnvironment: { CHAINB_ADAPTER: 'rpc', OAUTH_GITHUB_CLIENT_ID: 'gh-client', CHAIN_A_NETWORK: 'devnet', CHAIN_A_RPC_URL: 'https://rpc.example' },
        secretName: 'shroud/prod',
        secretKeys: ['CHAINB_PRIVATE_KEY', 'OAUTH_GITHUB_CLIENT_SECRET'],
      },
    });
    const stack = new ShroudStack(app, 'Shroud-prod', { stage: 'prod' });
    const group = stack.node.children.find((c): c is NestedStack => c instanceof NestedStack)!;
    const json = JSON.stringify(Template.fromStack(group).toJSON());
    expect(json).toContain('"CHAINB_ADAPTER":"rpc"');
    expect(json).toContain('"OAUTH_GITHUB_CLIENT_ID":"gh-client"');
    expect(json).toContain('{{resolve:secretsmanager:shroud/prod:SecretString:CHAINB_PRIVATE_KEY::}}');
    expect(json).toContain('{{resolve:secretsmanager:shroud/prod:SecretString:OAUTH_GITHUB_CLIENT_SECRET::}}');
    expect(Annotations.fromStack(stack).findError('*', Match.stringLikeRegexp('CHAIN_A_RPC_URL'))).toEqual([]);
  });

  it('-c rehearsal=true gives the rehearsal stage its chain A RPC; context on the command line wins', () => {
    const app = testApp({ context: { rehearsal: 'true' } });
    applyRehearsal(app);
    expect(app.node.tryGetContext('functionEnvironment')).toEqual(REHEARSAL_CONTEXT.functionEnvironment);
    const own = testApp({ context: { rehearsal: 'true', functionEnvironment: { CHAIN_A_RPC_URL: 'https://rpc.example' } } });
    applyRehearsal(own);
    expect(own.node.tryGetContext('functionEnvironment')).toEqual({ CHAIN_A_RPC_URL: 'https://rpc.example' });
    const plain = testApp({});
    applyRehearsal(plain);
    expect(plain.node.tryGetContext('functionEnvironment')).toBeUndefined();
  });
});

describe('wallet key custody', () => {
  const all = () => [...templates.values()];
  it('has one rotating KMS key for wallet data keys', () => {
    const keys = all().flatMap((t) => Object.values(t.findResources('AWS::KMS::Key', { Properties: { Description: Match.stringLikeRegexp('wallet') } })));
    expect(keys).toHaveLength(1);
    expect((keys[0] as { Properties: { EnableKeyRotation: boolean } }).Properties.EnableKeyRotation).toBe(true);
  });

  it('lets only the wallet-signing roles (wallets, compression, chainb, bridge, transfer, swap, rewards) generate and open data keys, and only their functions know the key', () => {
    const kmsRoles = new Set<string>();
    for (const s of nested) {
      const t = templates.get(s)!;
      for (const policy of Object.values(t.findResources('AWS::IAM::Policy'))) {
        const statements = (policy as { Properties: { PolicyDocument: { Statement: { Action: string | string[] }[] } } }).Properties.PolicyDocument.Statement;
        const actions = statements.flatMap((st) => [st.Action].flat());
        if (
          actions.some(
            (a) =>
              a.startsWith('kms:') &&
              a !== 'kms:Decrypt' &&
              a !== 'kms:GenerateDataKey' &&
              a !== 'kms:Encrypt' &&
              a !== 'kms:ReEncrypt*' &&
              a !== 'kms:GenerateDataKey*' &&
              a !== 'kms:DescribeKey',
          )
        )
          continue;
        if (actions.includes('kms:GenerateDataKey')) kmsRoles.add(s.node.id);
      }
      const fns = Object.values(t.findResources('AWS::Lambda::Function')) as { Properties: { Environment?: { Variables?: Record<string, unknown> } } }[];
      const withKey = fns.filter((f) => f.Properties.Environment?.Variables?.WALLET_KMS_KEY_ID !== undefined).length;
      expect(withKey === 0 || ['Wallets', 'Compression', 'Chainb', 'Bridge', 'Transfer', 'Swap', 'Rewards'].includes(s.node.id), s.node.id).toBe(true);
    }
    expect([...kmsRoles].sort()).toEqual(['Bridge', 'Chainb', 'Compression', 'Rewards', 'Swap', 'Transfer', 'Wallets']);
  });
});
