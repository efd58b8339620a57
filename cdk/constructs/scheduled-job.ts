import { Duration, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Effect, PolicyStatement, Role, ServicePrincipal, type IRole } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { ScheduledJob as JobRow } from '../../lib/job.ts';
import { ApiFunction } from './api-function.ts';

export interface ScheduledJobProps {
  stage: string;
  /** Its row of functions/jobs.ts: name, handler, period, timeout, retries. */
  row: JobRow;
  table: ITable;
  environment: Record<string, string>;
  /** What else the job's role may touch (the row's grants: the bucket, the wallet key), beyond the table and its logs. */
  grant?: (role: IRole) => void;
}

/**
 * A scheduled row of functions/jobs.ts: one function under functions/scheduled/ run by an EventBridge rule,
 * with its own least-privilege role (the table, logs of the stage's functions, and what `grant`
 * adds). The sweeper, the transfer retry job and the reward epochs' close are three of these.
 */
export class ScheduledJob extends Construct {
  readonly fn: ApiFunction;

  constructor(scope: Construct, id: string, props: ScheduledJobProps) {
    super(scope, id);
    const { row } = props;
    const stack = Stack.of(this);
    const role = new Role(this, 'Role', {
      roleName: `shroud-${props.stage}-${row.name}`.slice(0, 64),
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: row.description,
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
      entry: row.handler,
      name: `scheduled-${row.name}`,
      profile: 'standard',
      timeoutSeconds: row.timeoutSeconds,
      role,
      environment: props.environment,
    });
    new Rule(this, 'Schedule', {
      description: row.description,
      schedule: Schedule.rate(Duration.minutes(row.trigger.everyMinutes)),
      targets: [new LambdaFunction(this.fn, { retryAttempts: row.retryAttempts ?? 0 })],
    });
  }
}
