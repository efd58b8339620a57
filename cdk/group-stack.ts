import { NestedStack, Stack } from 'aws-cdk-lib';
import { HttpMethod, HttpRoute, HttpRouteKey, type IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { type ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { type ILayerVersion } from 'aws-cdk-lib/aws-lambda';
import { type IBucket } from 'aws-cdk-lib/aws-s3';
import { type IKey } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import type { ReplicaPinning } from './replicas.ts';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { grantBedrockModel, streamingUrl } from './ai.ts';
import { S3_GROUPS, type GroupName } from '../lib/http/groups.ts';
import type { Route } from '../lib/http/route.ts';
import { gatewayPath } from '../lib/http/router.ts';
import { ApiFunction } from './constructs/api-function.ts';
import { PERIOD, routeErrorRateAlarm, throttleAlarm } from './monitoring.ts';

/** A CloudFormation-safe id from a route: `POST /api/auth/login` → `PostApiAuthLogin`. */
export const idOf = (parts: string[]) =>
  parts
    .join(' ')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1).toLowerCase())
    .join('');

export interface GroupStackProps {
  stage: string;
  group: GroupName | 'fallback';
  rows: Route[];
  api: IHttpApi;
  table: ITable;
  bucket: IBucket;
  circuitsLayer: ILayerVersion;
  environment: Record<string, string>;
  /** Where the group's alarms notify, if anywhere. */
  topic?: ITopic;
  /** The wallet key, for the groups that sign (data keys only: GenerateDataKey and Decrypt). */
  walletKey?: IKey;
  /** Replicated pinning, when configured: the storage group sends its jobs and reads replicas. */
  replicas?: ReplicaPinning;
  /** The attest key, for the attest group (Decrypt of the issuer key only). */
  attestKey?: IKey;
  /** The attest group's generated issuer secret (cdk/attest-issuer.ts), when no ciphertext is given. */
  attestSecret?: ISecret;
}

/**
 * One route group: its least-privilege role and, per row, one function + API route + its alarms
 * (the route's 5xx rate, the function's throttles). Nested stacks keep every template far below
 * CloudFormation's 500-resource limit as groups grow.
 */
export class GroupStack extends NestedStack {
  readonly group: GroupName | 'fallback';
  /** The group's function names, as plain strings (for the root stack's dashboard). */
  readonly functionNames: string[] = [];

  constructor(scope: Construct, id: string, props: GroupStackProps) {
    super(scope, id, { description: `Shroud ${props.stage}: /api/${props.group}` });
    this.group = props.group;
    const watch = (rid: string, fn: ApiFunction) => {
      this.functionNames.push(fn.plainName);
      throttleAlarm(this, `${rid}ThrottlesAlarm`, {
        functionName: fn.plainName,
        throttles: fn.metricThrottles({ period: PERIOD, statistic: 'Sum' }),
        topic: props.topic,
      });
    };
    const role = new Role(this, 'Role', {
      roleName: `shroud-${props.stage}-${props.group}`.slice(0, 64),
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Functions of the ${props.group} route group`,
    });
    role.addToPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [`arn:${Stack.of(this).partition}:logs:${Stack.of(this).region}:${Stack.of(this).account}:log-group:/aws/lambda/shroud-${props.stage}-*`],
      }),
    );
    props.table.grantReadWriteData(role);
    if (props.group !== 'fallback' && S3_GROUPS.has(props.group)) props.bucket.grantReadWrite(role);
    if (props.walletKey) props.walletKey.grant(role, 'kms:GenerateDataKey', 'kms:Decrypt');
    if (props.group === 'storage') props.replicas?.grantRequests(role);
    if (props.group === 'ai') grantBedrockModel(this, role, props.environment);
    if (props.attestKey) props.attestKey.grant(role, 'kms:Decrypt');
    // The role's own policy (grantRead would also write the key's policy: a cycle with this nested stack); kms:Decrypt is granted above.
    if (props.attestSecret) role.addToPolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [props.attestSecret.secretArn] }));

    if (props.group === 'fallback') {
      const fn = new ApiFunction(this, 'Fallback', {
        stage: props.stage,
        entry: 'functions/fallback.ts',
        name: 'fallback',
        profile: 'standard',
        role,
        environment: props.environment,
      });
      watch('Fallback', fn);
      new HttpRoute(this, 'DefaultRoute', {
        httpApi: props.api,
        routeKey: HttpRouteKey.DEFAULT,
        integration: new HttpLambdaIntegration('DefaultIntegration', fn),
      });
      return;
    }
    for (const row of props.rows) {
      const rid = idOf([row.method, row.path.replace(/^\/api\//, '')]);
      const fn = new ApiFunction(this, rid, {
        stage: props.stage,
        entry: row.handler,
        name: rid.replace(/[A-Z]/g, (c, i) => (i ? '-' : '') + c.toLowerCase()),
        profile: row.profile,
        timeoutSeconds: row.timeout,
        role,
        circuitsLayer: props.circuitsLayer,
        environment: props.environment,
      });
      watch(rid, fn);
      if (row.stream)
        watch(
          `${rid}Stream`,
          streamingUrl(this, rid, {
            stage: props.stage,
            row,
            role,
            environment: props.environment,
            name: rid.replace(/[A-Z]/g, (c, i) => (i ? '-' : '') + c.toLowerCase()),
          }),
        );
      routeErrorRateAlarm(this, `${rid}ErrorRateAlarm`, { stage: props.stage, row, topic: props.topic });
      new HttpRoute(this, `${rid}Route`, {
        httpApi: props.api,
        routeKey: HttpRouteKey.with(gatewayPath(row.path), HttpMethod[row.method]),
        integration: new HttpLambdaIntegration(`${rid}Integration`, fn),
      });
    }
  }
}
