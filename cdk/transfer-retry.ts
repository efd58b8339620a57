import { Duration, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { ApiFunction } from './constructs/api-function.ts';

export interface TransferRetryProps {
  stage: string;
  table: ITable;
  walletKey: IKey;
  environment: Record<string, string>;
}

/**
 * The transfer retry job (lib/transfer/retry.ts) as a scheduled function: an EventBridge rule runs
 * functions/scheduled/transfer-retry.ts every minute to pay withdrawals whose payout failed and to
 * finish deposits a failure left half done. Its own role: the table, the wallet key (it signs
 * payouts with the pools' sealed keys), logs of its own group. Not a route of the API.
 */
export class TransferRetry extends Construct {
  constructor(scope: Construct, id: string, props: TransferRetryProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const role = new Role(this, 'Role', {
      roleName: `shroud-${props.stage}-transfer-retry`.slice(0, 64),
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'The shielded-transfer retry job',
    });
    role.addToPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [`arn:${stack.partition}:logs:${stack.region}:${stack.account}:log-group:/aws/lambda/shroud-${props.stage}-*`],
      }),
    );
    props.table.grantReadWriteData(role);
    props.walletKey.grant(role, 'kms:GenerateDataKey', 'kms:Decrypt');
    const fn = new ApiFunction(this, 'Function', {
      stage: props.stage,
      entry: 'functions/scheduled/transfer-retry.ts',
      name: 'scheduled-transfer-retry',
      profile: 'standard',
      timeoutSeconds: 55, // below the one-minute interval: passes never overlap
      role,
      environment: { ...props.environment, WALLET_KMS_KEY_ID: props.walletKey.keyArn },
    });
    new Rule(this, 'EveryMinute', {
      description: 'Runs the shielded-transfer retry job',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaFunction(fn, { retryAttempts: 0 })],
    });
  }
}
