import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';

/**
 * The Powertools pieces of the handler stack, without HTTP: the logger's Lambda context and
 * correlation id, the tracer's no-op outside Lambda, the SDK clients captured inside it.
 * Each case imports the modules afresh under its own environment (they are read at cold start).
 */
async function load(env: Record<string, string | undefined>) {
  vi.resetModules();
  vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'INFO');
  vi.stubEnv('STAGE', 'ci');
  vi.stubEnv('AWS_EXECUTION_ENV', undefined);
  vi.stubEnv('POWERTOOLS_TRACE_ENABLED', undefined);
  vi.stubEnv('POWERTOOLS_DEV', undefined);
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
  const [{ default: middy }, { observability }, { logger }, tracing] = await Promise.all([
    import('@middy/core'),
    import('#lib/observability.ts'),
    import('#lib/log.ts'),
    import('#lib/tracer.ts'),
  ]);
  return { middy, observability, logger, ...tracing };
}

/** Log lines (JSON) written while `fn` runs. */
async function logsOf(fn: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const chunks: string[] = [];
  const capture = (chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  };
  const spies = [vi.spyOn(process.stdout, 'write').mockImplementation(capture), vi.spyOn(process.stderr, 'write').mockImplementation(capture)];
  try {
    await fn().catch(() => undefined);
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return chunks
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const event = (requestId: string) =>
  ({
    version: '2.0',
    routeKey: 'POST /api/auth/login',
    rawPath: '/api/auth/login',
    headers: {},
    isBase64Encoded: false,
    requestContext: { requestId, http: { method: 'POST', path: '/api/auth/login', sourceIp: '127.0.0.1' } },
  }) as unknown as APIGatewayProxyEventV2;

const context = {
  functionName: 'shroud-ci-post-auth-login',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:shroud-ci-post-auth-login',
  memoryLimitInMB: '512',
  awsRequestId: 'lambda-request-1',
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  delete process.env.AWS_LAMBDA_MAX_CONCURRENCY;
});

describe('observability() middlewares', () => {
  it('put the Lambda context and the API Gateway request id on every log line of the invocation, then reset them', async () => {
    const { middy, observability, logger } = await load({});
    const handler = middy(async () => {
      logger.info('inside');
      return { statusCode: 200, body: 'ok' };
    }).use(observability());

    let result: unknown;
    const lines = await logsOf(async () => (result = await handler(event('api-gw-req-1'), context)));
    expect(result).toEqual({ statusCode: 200, body: 'ok' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      message: 'inside',
      level: 'INFO',
      service: 'shroud',
      stage: 'ci',
      correlation_id: 'api-gw-req-1',
      function_name: 'shroud-ci-post-auth-login',
      function_request_id: 'lambda-request-1',
      cold_start: expect.any(Boolean),
    });
    expect(logger.getCorrelationId()).toBeUndefined();

    // The next invocation carries its own id, also when the handler throws.
    const failing = middy(async () => {
      logger.info('inside');
      throw new Error('boom');
    }).use(observability());
    const second = await logsOf(() => failing(event('api-gw-req-2'), context));
    expect(second[0]).toMatchObject({ message: 'inside', correlation_id: 'api-gw-req-2' });
    expect(logger.getCorrelationId()).toBeUndefined();
  });

  it('leave the response untouched outside Lambda, where tracing is off', async () => {
    const { middy, observability, tracer } = await load({});
    expect(tracer.isTracingEnabled()).toBe(false);
    const handler = middy(async () => ({ statusCode: 201, headers: { 'x-a': 'b' }, body: '{}' })).use(observability());
    await expect(handler(event('r'), context)).resolves.toEqual({ statusCode: 201, headers: { 'x-a': 'b' }, body: '{}' });
  });
});

describe('overlapping invocations in one process (the local runtime)', () => {
  /** Two invocations whose handlers log after a pause, started 5 ms apart: their lifetimes overlap. */
  async function overlap(isolated: <T>(requestId: string, invoke: () => T) => T) {
    const { middy, observability, logger } = await load({});
    const handler = middy(async (e: APIGatewayProxyEventV2) => {
      await new Promise((r) => setTimeout(r, 20));
      logger.info('inside', { expected: e.requestContext.requestId });
      return { statusCode: 200 };
    }).use(observability());
    return logsOf(() =>
      Promise.all(
        ['req-a', 'req-b'].map(async (id, i) => {
          await new Promise((r) => setTimeout(r, 5 * i));
          return isolated(id, () => handler(event(id), { ...context, awsRequestId: `lambda-${id}` }));
        }),
      ),
    );
  }

  it("keeps each invocation's correlation id and Lambda context when isolated", async () => {
    const { isolateInvocations } = await import('#lib/observability.ts');
    const lines = await overlap(await isolateInvocations());
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line.correlation_id).toBe(line.expected);
      expect(line.function_request_id).toBe(`lambda-${String(line.expected)}`);
    }
  });

  it('mixes them up without isolation, on the one shared logger (why isolateInvocations exists)', async () => {
    const lines = await overlap((_id, invoke) => invoke());
    expect(lines.map((l) => l.correlation_id === l.expected)).toContain(false);
  });
});

describe('captureClient', () => {
  const xray = (client: { middlewareStack: { identify(): string[] } }) => client.middlewareStack.identify().some((m) => m.startsWith('XRaySDKInstrumentation'));

  it('leaves the SDK clients as they are outside Lambda', async () => {
    const { captureClient } = await load({});
    const { dynamo, db } = await import('#lib/data/client.ts');
    const { s3 } = await import('#lib/storage/s3.ts');
    expect(xray(dynamo)).toBe(false);
    expect(xray(db)).toBe(false);
    expect(xray(s3)).toBe(false);
    const plain = { middlewareStack: { identify: () => [] } };
    expect(captureClient(plain)).toBe(plain);
  });

  it('adds the X-Ray middleware to the DynamoDB (and document) and S3 clients in Lambda', async () => {
    const { tracer } = await load({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x' });
    expect(tracer.isTracingEnabled()).toBe(true);
    const { dynamo, db } = await import('#lib/data/client.ts');
    const { s3 } = await import('#lib/storage/s3.ts');
    expect(xray(dynamo)).toBe(true);
    expect(xray(db)).toBe(true);
    expect(xray(s3)).toBe(true);
  });

  it('stays off in Lambda when POWERTOOLS_TRACE_ENABLED=false', async () => {
    const { tracer } = await load({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x', POWERTOOLS_TRACE_ENABLED: 'false' });
    expect(tracer.isTracingEnabled()).toBe(false);
    const { dynamo } = await import('#lib/data/client.ts');
    expect(xray(dynamo)).toBe(false);
  });
});
