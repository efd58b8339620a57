import { routeOf } from '#functions/routes.ts';
import { login, loginInput, loginResponse } from '#lib/auth/identity.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { SESSION_COOKIE } from '#lib/http/cookies.ts';
import { reply } from '#lib/http/reply.ts';

export const handler = endpoint(routeOf('POST', '/api/auth/login'), { body: loginInput, responses: { 200: loginResponse } }, async (req) => {
  const { user, cookie } = await login(req.body, req.cookies[SESSION_COOKIE]);
  return reply(200, { message: 'logged in', user }, { cookies: [cookie] });
});
