import { routeOf } from '#functions/routes.ts';
import { register, registerInput, registerResponse } from '#lib/auth/identity.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';

export const handler = endpoint(routeOf('POST', '/api/auth/register'), { body: registerInput, responses: { 201: registerResponse } }, async (req) =>
  reply(201, { message: 'identity created', user: await register(req.body) }),
);
