import { Duration, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { ApiFunction } from './constructs/api-function.ts';

export interface RewardEpochsProps {
  stage: string;
  table: ITable;
  environment: Record<string, string>;
}

/**
 * The rewards epoch close (lib/rewards/rewards.ts `closeEndedEpochs`) as a scheduled function:
 * an EventBridge rule runs functions/scheduled/close-reward-epochs.ts every hour, which closes
 * each ended epoch into its published Merkle root. Its own role: the table and its logs only (it
 * signs nothing; claims pay from the rewards group's functions). Not a route of the API.
 */
export class RewardEpochs extends Construct {
  constructor(scope: Construct, id: string, props: RewardEpochsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const role = new Role(this, 'Role', {
      roleName: `shroud-${props.stage}-reward-epochs`.slice(0, 64),
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'Closes ended reward epochs',
    });
    role.addToPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [`arn:${stack.partition}:logs:${stack.region}:${stack.account}:log-group:/aws/lambda/shroud-${props.stage}-*`],
      }),
    );
    props.table.grantReadWriteData(role);
    const fn = new ApiFunction(this, 'Function', {
      stage: props.stage,
      entry: 'functions/scheduled/close-reward-epochs.ts',
      name: 'scheduled-close-reward-epochs',
      profile: 'standard',
      timeoutSeconds: 300,
      role,
      environment: props.environment,
    });
    new Rule(this, 'Hourly', {
      description: 'Closes ended reward epochs into their Merkle roots',
      schedule: Schedule.rate(Duration.hours(1)),
      targets: [new LambdaFunction(fn, { retryAttempts: 2 })],
    });
  }
}
