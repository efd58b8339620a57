import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ShroudStack } from '../../cdk/stack.ts';
import { testApp } from '../support/cdk.ts';

/** The bridge relayer as `cdk synth -c stage=ci` builds it (no bundling). */
let t: Template;

beforeAll(() => {
  process.env.CDK_VALIDATION = 'false';
  const app = testApp({ context: { 'aws:cdk:bundling-stacks': [], stage: 'ci' } });
  t = Template.fromStack(new ShroudStack(app, 'Shroud-ci', { stage: 'ci' }));
});

describe('the bridge relayer on AWS', () => {
  it('is a function run every minute by an EventBridge rule, with the table and the wallet key', () => {
    const fns = t.findResources('AWS::Lambda::Function', { Properties: { FunctionName: 'shroud-ci-scheduled-bridge-relayer' } });
    expect(Object.keys(fns)).toHaveLength(1);
    const [fnId, fn] = Object.entries(fns)[0]! as [
      string,
      { Properties: { Timeout: number; Environment: { Variables: Record<string, unknown> }; Role: { 'Fn::GetAtt': [string, string] } } },
    ];
    expect(fn.Properties.Timeout).toBe(55);
    expect(fn.Properties.Environment.Variables).toMatchObject({ WALLET_KMS_KEY_ID: expect.anything() });
    // Its schedule targets it.
    const rules = t.findResources('AWS::Events::Rule', {
      Properties: { ScheduleExpression: 'rate(1 minute)', Targets: Match.arrayWith([Match.objectLike({ Arn: { 'Fn::GetAtt': [fnId, 'Arn'] } })]) },
    });
    expect(Object.keys(rules)).toHaveLength(1);
    // Its own role may read and write the table and use the wallet key (seal and open the escrow key), nothing more.
    const roleId = fn.Properties.Role['Fn::GetAtt'][0];
    const policies = Object.values(t.findResources('AWS::IAM::Policy')).filter((p) =>
      JSON.stringify((p as { Properties: { Roles: unknown } }).Properties.Roles).includes(roleId),
    );
    const actions = policies.flatMap((p) =>
      (p as { Properties: { PolicyDocument: { Statement: { Action: string | string[] }[] } } }).Properties.PolicyDocument.Statement.flatMap((s) => s.Action),
    );
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'kms:Decrypt', 'kms:GenerateDataKey']));
    expect(actions.filter((a) => a.startsWith('s3:'))).toEqual([]);
  });
});
