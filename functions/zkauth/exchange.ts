import { routeOf } from '#functions/routes.ts';
import { exchangeHandoff, exchangeInput, exchangeResponse } from '#lib/auth/oauth/handoff.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';

export const handler = endpoint(routeOf('POST', '/api/zkauth/exchange'), { body: exchangeInput, responses: { 200: exchangeResponse } }, async (req) => {
  const { answer, cookie } = await exchangeHandoff(req.body, req.session);
  return reply(200, answer, cookie ? { cookies: [cookie] } : {});
});
