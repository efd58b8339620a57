import { routeOf } from '#functions/routes.ts';
import { identityInput, upgradeLegacy, registerResponse } from '#lib/auth/identity.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint(routeOf('POST', '/api/auth/upgrade-legacy'), { body: identityInput, responses: { 200: registerResponse } }, async (req) => ({
  message: 'identity created',
  user: await upgradeLegacy(req.session, req.body),
}));
