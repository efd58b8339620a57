import { Duration, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { ApiFunction } from './constructs/api-function.ts';

export interface SweeperProps {
  stage: string;
  table: ITable;
  bucket: IBucket;
  environment: Record<string, string>;
}

/**
 * The orphan sweeper (lib/storage/sweeper.ts) as a scheduled function: an EventBridge rule runs
 * functions/scheduled/sweep.ts every 15 minutes. Its own role: the table and the bucket, logs of
 * its own group. Not a route of the API.
 */
export class Sweeper extends Construct {
  constructor(scope: Construct, id: string, props: SweeperProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const role = new Role(this, 'Role', {
      roleName: `shroud-${props.stage}-sweeper`.slice(0, 64),
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'The orphan-block sweeper',
    });
    role.addToPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [`arn:${stack.partition}:logs:${stack.region}:${stack.account}:log-group:/aws/lambda/shroud-${props.stage}-*`],
      }),
    );
    props.table.grantReadWriteData(role);
    props.bucket.grantReadWrite(role);
    const fn = new ApiFunction(this, 'Function', {
      stage: props.stage,
      entry: 'functions/scheduled/sweep.ts',
      name: 'scheduled-sweep',
      profile: 'standard',
      // A pass lists every block; bounded well below the 15-minute interval.
      timeoutSeconds: 300,
      role,
      environment: props.environment,
    });
    new Rule(this, 'Every15Minutes', {
      description: 'Runs the orphan-block sweeper',
      schedule: Schedule.rate(Duration.minutes(15)),
      targets: [new LambdaFunction(fn, { retryAttempts: 0 })],
    });
  }
}
