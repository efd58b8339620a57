import { CfnOutput, Duration, RemovalPolicy, SecretValue, Stack, type StackProps } from 'aws-cdk-lib';
import { CorsHttpMethod, HttpApi, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Code, LayerVersion, Runtime, Architecture } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods } from 'aws-cdk-lib/aws-s3';
import { NagSuppressions } from 'cdk-nag';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { ReplicaPinning, replicaTargetsOf } from './replicas.ts';
import { GroupStack, idOf } from './group-stack.ts';
import { checkStageEnvironment } from './rehearsal.ts';
import { attestIssuerSecret } from './attest-issuer.ts';
import { ScheduledJob } from './constructs/scheduled-job.ts';
import { WebHosting } from './constructs/web-hosting.ts';
import { join } from 'node:path';
import { routes } from '../functions/routes.ts';
import { scheduledJobs } from '../functions/jobs.ts';
import { WALLET_KEY_GROUPS, type GroupName } from '../lib/http/groups.ts';
import type { Route } from '../lib/http/route.ts';
import { table as tableSchema } from '../lib/data/table.ts';
import { assertTrustedSetup } from '../lib/zk/trusted-setup.ts';
import { repoRoot } from './constructs/api-function.ts';
import { alarmTopic, apiErrorRateAlarm, dashboard } from './monitoring.ts';

export interface ShroudStackProps extends StackProps {
  stage: string;
}

export class ShroudStack extends Stack {
  readonly api: HttpApi;

  constructor(scope: Construct, id: string, props: ShroudStackProps) {
    super(scope, id, props);
    const { stage } = props;
    const corsOrigins = String(this.node.tryGetContext('corsOrigins') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);

    const table = new Table(this, 'Table', {
      tableName: `shroud-${stage}`,
      partitionKey: { name: tableSchema.partitionKey, type: AttributeType.STRING },
      sortKey: { name: tableSchema.sortKey, type: AttributeType.STRING },
      timeToLiveAttribute: tableSchema.ttlAttribute,
      billingMode: BillingMode.PAY_PER_REQUEST,
      encryption: TableEncryption.AWS_MANAGED,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy: stage === 'prod' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    for (const index of tableSchema.indexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
      });
    }

    const accessLogs = new Bucket(this, 'AccessLogs', {
      bucketName: `shroud-${stage}-access-logs-${this.account}`,
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: false,
    });
    const bucket = new Bucket(this, 'Blocks', {
      bucketName: `shroud-${stage}-blocks-${this.account}`,
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'blocks/',
      // Browsers PUT large files straight to S3 through presigned URLs.
      cors: corsOrigins.length ? [{ allowedMethods: [HttpMethods.PUT, HttpMethods.GET], allowedOrigins: corsOrigins, allowedHeaders: ['*'] }] : undefined,
      lifecycleRules: [
        // Staged presigned uploads never finalised.
        { prefix: 'uploads/', expiration: Duration.days(1) },
        // The parts of a data object whose upload died before completing or aborting it (invisible to listings, so to the sweeper).
        { abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      removalPolicy: stage === 'prod' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });

    // Circuit artifacts (.wasm, .zkey, verification keys) at /opt in every crypto function.
    const circuitsLayer = new LayerVersion(this, 'Circuits', {
      layerVersionName: `shroud-${stage}-circuits`,
      code: Code.fromAsset(join(repoRoot, 'circuits', 'artifacts')),
      compatibleRuntimes: [Runtime.NODEJS_22_X],
      compatibleArchitectures: [Architecture.ARM_64],
      description: 'Shroud circuit artifacts',
    });

    const apiLogs = new LogGroup(this, 'ApiAccessLogs', {
      logGroupName: `/aws/apigateway/shroud-${stage}`,
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.api = new HttpApi(this, 'Api', {
      apiName: `shroud-${stage}`,
      createDefaultStage: false,
      corsPreflight: corsOrigins.length
        ? {
            allowOrigins: corsOrigins,
            allowCredentials: true,
            allowMethods: [CorsHttpMethod.ANY],
            allowHeaders: ['content-type', 'x-zk-proof', 'x-zk-public-signals', 'idempotency-key'],
            exposeHeaders: [
              'x-request-id',
              'retry-after',
              'ratelimit-limit',
              'ratelimit-remaining',
              'ratelimit-reset',
              'content-disposition',
              'idempotent-replayed',
            ],
            maxAge: Duration.minutes(10),
          }
        : undefined,
    });
    new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      accessLogSettings: { destination: new LogGroupLogDestination(apiLogs) },
    });

    // The browser terminal and the API on one CloudFront origin: the public base URL (OAuth callbacks).
    const web = new WebHosting(this, 'Web', { stage, api: this.api, accessLogs });

    // Replicated pinning only with storage targets configured (`-c replicaTargets=[...]`).
    const replicaTargets = replicaTargetsOf(this);
    const replicas = replicaTargets.length ? new ReplicaPinning(this, 'Replicas', { stage, table, bucket, targets: replicaTargets }) : undefined;
    const environment = {
      ...deploymentEnvironment(this),
      ...(replicas?.environment ?? {}),
      STAGE: stage,
      TABLE_NAME: table.tableName,
      BUCKET_NAME: bucket.bucketName,
      CORS_ORIGINS: corsOrigins.join(','),
      ...(this.node.tryGetContext('publicBaseUrl') ? {} : { PUBLIC_BASE_URL: web.url }),
      ...(isProduction(this) ? { SHROUD_PRODUCTION: 'true' } : {}),
    };
    checkStageEnvironment(this, environment);
    // A stage that moves real value is not synthesized with keys from a development ceremony.
    assertTrustedSetup(join(repoRoot, 'circuits', 'artifacts'), environment);

    // Wallet keys at rest: envelope encryption with data keys from this key (lib/wallets).
    const walletKey = new Key(this, 'WalletKey', {
      alias: `alias/shroud-${stage}-wallets`,
      description: 'Shroud wallet keys: data keys for envelope encryption',
      enableKeyRotation: true,
      removalPolicy: stage === 'prod' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });

    // The attestation issuer's EdDSA key arrives KMS-encrypted under this key (lib/attest/config.ts):
    // `-c attestIssuerKeyCiphertext=<base64>`; only the attest functions may decrypt.
    const attestKey = new Key(this, 'AttestKey', {
      alias: `alias/shroud-${stage}-attest`,
      description: 'Shroud attestation issuer key: decrypts ATTEST_ISSUER_KEY_CIPHERTEXT',
      enableKeyRotation: true,
      removalPolicy: stage === 'prod' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    const attestCiphertext = this.node.tryGetContext('attestIssuerKeyCiphertext') as string | undefined;
    const attestSecret = attestCiphertext ? undefined : attestIssuerSecret(this, stage, attestKey);

    // Alarms notify an SNS topic when the `alarmEmail` context is set (see cdk/monitoring.ts).
    const topic = alarmTopic(this, stage);
    // The API's functions also learn the origin secret, to believe CloudFront's viewer address (lib/http/client-address.ts).
    const apiEnvironment = { ...environment, ...web.apiEnvironment };
    const byGroup = new Map<GroupName, Route[]>();
    for (const route of routes) byGroup.set(route.group, [...(byGroup.get(route.group) ?? []), route]);
    const groupStacks: GroupStack[] = [];
    for (const [group, rows] of byGroup) {
      const signs = WALLET_KEY_GROUPS.has(group);
      groupStacks.push(
        new GroupStack(this, idOf([group]), {
          stage,
          group,
          rows,
          api: this.api,
          table,
          bucket,
          circuitsLayer,
          environment: signs
            ? { ...apiEnvironment, WALLET_KMS_KEY_ID: walletKey.keyArn }
            : group === 'attest'
              ? {
                  ...apiEnvironment,
                  ...(attestSecret ? { ATTEST_ISSUER_SECRET_ARN: attestSecret.secretArn } : { ATTEST_ISSUER_KEY_CIPHERTEXT: attestCiphertext! }),
                }
              : apiEnvironment,
          topic,
          walletKey: signs ? walletKey : undefined,
          replicas,
          attestKey: group === 'attest' ? attestKey : undefined,
          attestSecret: group === 'attest' ? attestSecret : undefined,
        }),
      );
    }
    groupStacks.push(
      new GroupStack(this, 'Fallback', { stage, group: 'fallback', rows: [], api: this.api, table, bucket, circuitsLayer, environment: apiEnvironment, topic }),
    );

    apiErrorRateAlarm(this, 'ApiErrorRateAlarm', { stage, api: this.api, topic });
    dashboard(this, { stage, api: this.api, groups: groupStacks.map((g) => ({ name: g.group, functionNames: g.functionNames })) });

    new CfnOutput(this, 'ApiUrl', { value: this.api.apiEndpoint, description: 'The API base URL' });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'BucketName', { value: bucket.bucketName });
    // The jobs that are not routes, one per row of functions/jobs.ts: EventBridge schedules here,
    // the replica worker and audit in ReplicaPinning (its role and queues), when it is configured.
    for (const row of scheduledJobs()) {
      if (row.grants.includes('replicas')) continue;
      const signs = row.grants.includes('wallet-key') || row.grants.includes('wallet-key-id');
      new ScheduledJob(this, row.id, {
        stage,
        row,
        table,
        environment: signs ? { ...environment, WALLET_KMS_KEY_ID: walletKey.keyArn } : environment,
        grant: (role) => {
          if (row.grants.includes('bucket')) bucket.grantReadWrite(role);
          if (row.grants.includes('wallet-key')) walletKey.grant(role, 'kms:GenerateDataKey', 'kms:Decrypt');
        },
      });
    }
    replicas?.addFunctions(environment);

    NagSuppressions.addStackSuppressions(
      this,
      [
        {
          id: 'AwsSolutions-APIG4',
          reason:
            'Authorization is the session cookie, checked in every function by the handler stack (lib/http); public routes are public by the API contract.',
        },
        {
          id: 'AwsSolutions-S1',
          reason: 'The access-logs bucket is itself the server access log destination of the blocks bucket; logging it again would recurse.',
        },
        {
          id: 'AwsSolutions-IAM5',
          reason:
            "Wildcards are the table's own index ARNs (grantReadWriteData) and the bucket's own object ARNs; log permissions are scoped to the stage's /aws/lambda/shroud-<stage>-* groups; X-Ray's PutTraceSegments/PutTelemetryRecords (active tracing) accept no resource but *.",
        },
        { id: 'AwsSolutions-L1', reason: 'nodejs22.x is pinned by design (docs/deploy.md): the code is built and tested on Node 22.' },
      ],
      true,
    );
  }
}

/**
 * What a stage needs beyond the stack's own resources, from context (cdk.json or `-c`):
 * - `functionEnvironment`: plain settings for every function, e.g. `{"CHAINB_ADAPTER": "rpc",
 *   "CHAINB_RPC_URL": "...", "OAUTH_GITHUB_CLIENT_ID": "...", "PINNING_ADAPTER": "s3"}`;
 * - `secretName` + `secretKeys`: a Secrets Manager secret (a JSON object) whose listed keys become
 *   environment variables through CloudFormation dynamic references, so no secret value is in the
 *   template or the repository (e.g. `CHAINB_PRIVATE_KEY`, `OAUTH_GITHUB_CLIENT_SECRET`, `PINATA_JWT`).
 * - `publicBaseUrl`: the public URL when a custom domain fronts the distribution (else the
 *   distribution's https://<id>.cloudfront.net, which serves the page and `/api/*`).
 */
/** `-c production=true`: a stage that moves real value (its functions get SHROUD_PRODUCTION=true). */
const isProduction = (scope: Construct) => ['true', true].includes(scope.node.tryGetContext('production') as string | boolean);

function deploymentEnvironment(scope: Construct): Record<string, string> {
  const ctx = (k: string) => scope.node.tryGetContext(k);
  const parse = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
  const plain = (parse(ctx('functionEnvironment')) ?? {}) as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(plain)) out[k] = String(v);
  if (ctx('publicBaseUrl')) out.PUBLIC_BASE_URL = String(ctx('publicBaseUrl'));
  const secretName = ctx('secretName') as string | undefined;
  const secretKeys = (parse(ctx('secretKeys')) ?? []) as string[];
  if (secretKeys.length && !secretName) throw new Error('secretKeys needs secretName');
  for (const key of secretKeys) {
    out[key] = SecretValue.secretsManager(secretName!, { jsonField: key }).unsafeUnwrap();
  }
  return out;
}
