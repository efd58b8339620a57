import { CfnOutput, Duration, Stack } from 'aws-cdk-lib';
import { Effect, PolicyStatement, type IRole } from 'aws-cdk-lib/aws-iam';
import { FunctionUrlAuthType, HttpMethod, InvokeMode, type CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { Route } from '../lib/http/route.ts';
import { ApiFunction } from './constructs/api-function.ts';

/**
 * A streaming route's second function: the same handler module's `streamHandler`
 * (`awslambda.streamifyResponse` around the usual stack: session, rate limit, CORS, limits),
 * behind a Lambda function URL in RESPONSE_STREAM mode, since API Gateway's HTTP API buffers
 * answers. The URL has no IAM auth: the session cookie is the credential, checked by the handler.
 */
export function streamingUrl(
  scope: Construct,
  rid: string,
  props: { stage: string; row: Route; role: IRole; environment: Record<string, string>; name: string },
): ApiFunction {
  const fn = new ApiFunction(scope, `${rid}Stream`, {
    stage: props.stage,
    entry: props.row.handler,
    name: `${props.name}-stream`,
    profile: props.row.profile,
    // A function URL allows up to 15 minutes; an answer is bounded by the model's own timeout.
    timeoutSeconds: 60,
    role: props.role,
    environment: props.environment,
  });
  (fn.node.defaultChild as CfnFunction).addPropertyOverride('Handler', `${fn.handlerModule}.streamHandler`);
  const origins = (props.environment.CORS_ORIGINS ?? '').split(',').filter(Boolean);
  const url = fn.addFunctionUrl({
    authType: FunctionUrlAuthType.NONE,
    invokeMode: InvokeMode.RESPONSE_STREAM,
    cors: origins.length
      ? {
          allowedOrigins: origins,
          allowCredentials: true,
          allowedMethods: [HttpMethod.POST],
          allowedHeaders: ['content-type', 'accept'],
          exposedHeaders: ['x-request-id', 'retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'],
          maxAge: Duration.minutes(10),
        }
      : undefined,
  });
  new CfnOutput(scope, `${rid}StreamUrl`, { value: url.url, description: `${props.row.method} ${props.row.path}, streamed (server-sent events)` });
  return fn;
}

/**
 * Bedrock for the assistant's role, only when `AI_BACKEND=bedrock`: ConverseStream on the
 * configured model and nothing else (a cross-region inference profile also needs the
 * foundation model it routes to, in any region).
 */
export function grantBedrockModel(scope: Construct, role: IRole, environment: Record<string, string>): void {
  if (environment.AI_BACKEND !== 'bedrock' || !environment.AI_BEDROCK_MODEL_ID) return;
  const { partition, region, account } = Stack.of(scope);
  const model = environment.AI_BEDROCK_MODEL_ID;
  const profile = /^(us|eu|apac|global)\.(.+)$/.exec(model);
  const resources = profile
    ? [`arn:${partition}:bedrock:${region}:${account}:inference-profile/${model}`, `arn:${partition}:bedrock:*::foundation-model/${profile[2]}`]
    : [`arn:${partition}:bedrock:${region}::foundation-model/${model}`];
  role.addToPrincipalPolicy(new PolicyStatement({ effect: Effect.ALLOW, actions: ['bedrock:InvokeModelWithResponseStream'], resources }));
}
