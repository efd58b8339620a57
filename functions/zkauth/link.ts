import { routeOf } from '#functions/routes.ts';
import { baseUrlOf, startAuthorization } from '#lib/auth/oauth/flow.ts';
import { requireSameSiteLinkStart } from '#lib/auth/oauth/link-origin.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { redirect } from '#lib/http/reply.ts';
import { loginQuery, startOf } from './login.ts';
import { toProviderResponse } from '#lib/auth/oauth/responses.ts';

export const handler = endpoint(routeOf('GET', '/api/zkauth/link'), { query: loginQuery, responses: { 302: toProviderResponse } }, async (req) => {
  const domainName = req.event.requestContext?.domainName;
  // A link flow started by another site must never link an account (account-link CSRF).
  requireSameSiteLinkStart(req.headers, baseUrlOf(domainName), req.query.code_challenge !== undefined);
  const { location, cookies } = await startAuthorization({
    ...startOf(req.query),
    mode: 'link',
    userId: req.session!.userId,
    domainName,
  });
  return redirect(location, cookies);
});
