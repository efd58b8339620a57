import { NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ShroudStack } from '../../../cdk/stack.ts';
import { testApp } from '../../support/cdk.ts';

/** The assistant's infrastructure: chat's streaming function URL, and Bedrock scoped to the configured model. */
function synth(functionEnvironment?: Record<string, string>) {
  process.env.CDK_VALIDATION = 'false';
  const app = testApp({
    context: {
      'aws:cdk:bundling-stacks': [],
      stage: 'ci',
      corsOrigins: 'https://app.example.com',
      ...(functionEnvironment ? { functionEnvironment: JSON.stringify(functionEnvironment) } : {}),
    },
  });
  const root = new ShroudStack(app, 'Shroud-ci', { stage: 'ci' });
  const ai = root.node.children.find((c): c is NestedStack => c instanceof NestedStack && c.node.id === 'Ai')!;
  return Template.fromStack(ai as Stack);
}

const policies = (t: Template) => JSON.stringify(t.findResources('AWS::IAM::Policy'));

describe('cdk: the ai group', () => {
  it("serves chat from a function URL with response streaming, the handler module's streamHandler, CORS for the configured origins", () => {
    const t = synth();
    t.hasResourceProperties('AWS::Lambda::Url', {
      AuthType: 'NONE',
      InvokeMode: 'RESPONSE_STREAM',
      Cors: { AllowOrigins: ['https://app.example.com'], AllowCredentials: true, AllowMethods: ['POST'] },
    });
    t.hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'shroud-ci-post-ai-chat-stream', Handler: 'chat.streamHandler' });
    t.hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'shroud-ci-post-ai-chat', Handler: 'chat.handler' });
    expect(policies(t)).not.toContain('bedrock');
  });

  it('grants ConverseStream on the configured Bedrock model only', () => {
    const t = synth({ AI_BACKEND: 'bedrock', AI_BEDROCK_MODEL_ID: 'anthropic.claude-3-haiku-20240307-v1:0' });
    const text = policies(t);
    expect(text).toContain('bedrock:InvokeModelWithResponseStream');
    expect(text).toContain('foundation-model/anthropic.claude-3-haiku-20240307-v1:0');
    expect(text).not.toMatch(/bedrock:\*|foundation-model\/\*/);
  });
});
