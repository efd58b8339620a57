import { Duration, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Effect, PolicyStatement, Role, ServicePrincipal, type IRole } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { ApiFunction } from './api-function.ts';

export interface ScheduledJobProps {
  stage: string;
  /** `scheduled-<name>` is the function's name, `shroud-<stage>-<name>` its role's. */
  name: string;
  /** The handler under functions/scheduled/. */
  entry: string;
  description: string;
  every: Duration;
  /** Below the interval where passes must never overlap. */
  timeoutSeconds: number;
  table: ITable;
  environment: Record<string, string>;
  /** EventBridge's retries of a failed invocation. */
  retryAttempts?: number;
  /** What else the job's role may touch (the bucket, the wallet key), beyond the table and its logs. */
  grant?: (role: IRole) => void;
}

/**
 * A job that is not a route: one function under functions/scheduled/ run by an EventBridge rule,
 * with its own least-privilege role (the table, logs of the stage's functions, and what `grant`
 * adds). The sweeper, the transfer retry job and the reward epochs' close are three of these.
 */
export class ScheduledJob extends Construct {
  readonly fn: ApiFunction;

  constructor(scope: Construct, id: string, props: ScheduledJobProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const role = new Role(this, 'Role', {
      roleName: `shroud-${props.stage}-${props.name}`.slice(0, 64),
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: props.description,
    });
    role.addToPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [`arn:${stack.partition}:logs:${stack.region}:${stack.account}:log-group:/aws/lambda/shroud-${props.stage}-*`],
      }),
    );
    props.table.grantReadWriteData(role);
    props.grant?.(role);
    this.fn = new ApiFunction(this, 'Function', {
      stage: props.stage,
      entry: props.entry,
      name: `scheduled-${props.name}`,
      profile: 'standard',
      timeoutSeconds: props.timeoutSeconds,
      role,
      environment: props.environment,
    });
    new Rule(this, 'Schedule', {
      description: props.description,
      schedule: Schedule.rate(props.every),
      targets: [new LambdaFunction(this.fn, { retryAttempts: props.retryAttempts ?? 0 })],
    });
  }
}
