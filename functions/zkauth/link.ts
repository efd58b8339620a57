import { routeOf } from '#functions/routes.ts';
import { startAuthorization } from '#lib/auth/oauth/flow.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { redirect } from '#lib/http/reply.ts';
import { loginQuery } from './login.ts';

export const handler = endpoint(routeOf('GET', '/api/zkauth/link'), { query: loginQuery }, async (req) => {
  const { location, cookies } = await startAuthorization({
    provider: req.query.provider,
    redirect: req.query.redirect,
    loginHint: req.query.login_hint,
    mode: 'link',
    userId: req.session!.userId,
    domainName: req.event.requestContext?.domainName,
  });
  return redirect(location, cookies);
});
