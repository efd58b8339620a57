import { vi } from 'vitest';

/**
 * Tracing as it runs in Lambda, without AWS: the X-Ray SDK is put in Lambda mode (it reads the
 * environment when first imported, hence vi.hoisted) and sends its segments over UDP to a "daemon"
 * that is this test's own socket; DynamoDB is a local HTTP server answering GetItem.
 */
vi.hoisted(() => {
  Object.assign(process.env, {
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    LAMBDA_TASK_ROOT: '/var/task',
    AWS_LAMBDA_FUNCTION_NAME: 'shroud-ci-get-api-probe',
    _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    _HANDLER: 'index.handler',
    POWERTOOLS_LOG_LEVEL: 'CRITICAL',
    STAGE: 'ci',
  });
});

import { createSocket } from 'node:dgram';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Segment = {
  name: string;
  subsegments?: Segment[];
  annotations?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  aws?: Record<string, unknown>;
  fault?: boolean;
};

const received: Segment[] = [];
const daemon = createSocket('udp4');
const dynamodb = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.setHeader('content-type', 'application/x-amz-json-1.0');
    res.end(JSON.stringify({ Item: { pk: { S: 'USER#1' }, sk: { S: 'PROFILE' }, secret: { S: 'not-for-traces' } } }));
  });
});

beforeAll(async () => {
  daemon.on('message', (msg) => {
    // "{format, version}\n{segment}" per datagram.
    const body = msg.toString('utf8').split('\n').slice(1).join('\n');
    if (body) received.push(JSON.parse(body) as Segment);
  });
  await new Promise<void>((r) => daemon.bind(0, '127.0.0.1', r));
  await new Promise<void>((r) => dynamodb.listen(0, '127.0.0.1', r));
  process.env.AWS_XRAY_DAEMON_ADDRESS = `127.0.0.1:${daemon.address().port}`;
  process.env.DYNAMODB_ENDPOINT = `http://127.0.0.1:${(dynamodb.address() as AddressInfo).port}`;
});

afterAll(async () => {
  daemon.close();
  await new Promise((r) => dynamodb.close(r));
});

const flat = (s: Segment): Segment[] => [s, ...(s.subsegments ?? []).flatMap(flat)];

describe('tracing in Lambda', () => {
  it('records the handler and its DynamoDB calls, never the response; counts the cold start', async () => {
    const [{ default: middy }, { observability }, { db, tableName }, { GetCommand }] = await Promise.all([
      import('@middy/core'),
      import('#lib/observability.ts'),
      import('#lib/data/client.ts'),
      import('@aws-sdk/lib-dynamodb'),
    ]);
    const handler = middy(async () => {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: { pk: 'USER#1', sk: 'PROFILE' } }));
      return { statusCode: 200, body: JSON.stringify({ secret: Item?.secret, cookie: 'shroud_session=abc' }) };
    }).use(observability());

    const event = { requestContext: { requestId: 'api-gw-1', http: { method: 'GET', path: '/api/probe' } } } as unknown as APIGatewayProxyEventV2;
    const context = { functionName: 'shroud-ci-get-api-probe', awsRequestId: 'lambda-1', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
    // stdout: the EMF lines (here, Powertools' ColdStart metric of this first invocation).
    const out: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => (out.push(String(c)), true));
    const result = await handler(event, context).finally(() => spy.mockRestore());
    expect(result).toMatchObject({ statusCode: 200 });
    const emf = out
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(emf).toEqual([expect.objectContaining({ ColdStart: 1, function_name: 'shroud-ci-get-api-probe', service: 'shroud', stage: 'ci' })]);

    await expect.poll(() => received.flatMap(flat).some((s) => s.name === '## index.handler'), { timeout: 5000 }).toBe(true);
    const all = received.flatMap(flat);
    const handlerSegment = all.find((s) => s.name === '## index.handler')!;
    expect(handlerSegment.annotations).toMatchObject({ ColdStart: true, Service: 'shroud' });
    const dynamo = all.find((s) => s.name === 'DynamoDB')!;
    expect(dynamo).toBeDefined();
    expect(dynamo.aws).toMatchObject({ operation: 'GetItem', table_name: tableName });
    expect(dynamo.fault).toBeFalsy();
    const text = JSON.stringify(received);
    expect(text).not.toContain('not-for-traces');
    expect(text).not.toContain('shroud_session');
  });
});
