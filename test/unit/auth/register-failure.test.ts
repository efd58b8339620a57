import { vi } from 'vitest';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'CRITICAL'; // the expected 500 would log at ERROR
});

import { afterEach, describe, expect, it } from 'vitest';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { db } from '#lib/data/client.ts';
import { handler } from '#functions/auth/register.ts';
import { createIdentity } from '#lib/client/identity.ts';

/** A storage failure during registration: API.md's "500 failed to create the identity". */
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

describe('register when DynamoDB fails', () => {
  it('answers 500 "failed to create the identity" and leaks nothing', async () => {
    const sent: string[] = [];
    vi.spyOn(db, 'send').mockImplementation((async (command: { constructor: { name: string } }) => {
      sent.push(command.constructor.name);
      if (command.constructor.name === 'UpdateCommand') return { Attributes: { count: 1 } }; // the rate limit
      throw Object.assign(new Error('Requested resource not found: table shroud-local'), { name: 'ResourceNotFoundException' });
    }) as never);
    const { encrypted } = await createIdentity('a long password', 100_000);
    const res = await handler(event({ username: 'someone', password: 'a long password', ...encrypted }));
    expect(sent).toContain('TransactWriteCommand');
    expect(res.statusCode).toBe(500);
    expect(JSON.parse(res.body!)).toEqual({ error: 'IDENTITY_CREATION_FAILED', message: 'failed to create the identity' });
  });
});
