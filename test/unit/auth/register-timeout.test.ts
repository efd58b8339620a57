import { vi } from 'vitest';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'CRITICAL';
});

import { afterEach, describe, expect, it } from 'vitest';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { db } from '#lib/data/client.ts';
import { handler } from '#functions/auth/register.ts';
import { createIdentity } from '#lib/client/identity.ts';

/**
 * DynamoDB timing out during registration (found by the load script: 200 clients on a loaded
 * machine): a dependency failure, so 503 with Retry-After as everywhere else — not API.md's 500
 * "failed to create the identity", which is for what retrying will not fix.
 */
const event = (body: unknown): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey: 'POST /api/auth/register',
    rawPath: '/api/auth/register',
    rawQueryString: '',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: { requestId: 'r1', http: { method: 'POST', path: '/api/auth/register', sourceIp: '127.0.0.1' } },
  }) as unknown as APIGatewayProxyEventV2;

afterEach(() => vi.restoreAllMocks());

describe('register when DynamoDB times out', () => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After', async () => {
    vi.spyOn(db, 'send').mockImplementation((async (command: { constructor: { name: string } }) => {
      if (command.constructor.name === 'UpdateCommand') return { Attributes: { count: 1 } }; // the rate limit
      throw Object.assign(new Error('Connection timed out after 5000 ms'), { name: 'TimeoutError' });
    }) as never);
    const { encrypted } = await createIdentity('a long password', 100_000);
    const res = await handler(event({ username: 'someone', password: 'a long password', ...encrypted }));
    expect(res.statusCode).toBe(503);
    expect(JSON.parse(res.body!)).toEqual({ error: 'SERVICE_UNAVAILABLE', message: expect.any(String) });
    expect(Number(res.headers?.['retry-after'])).toBeGreaterThan(0);
  });
});
