import { routeOf } from '#functions/routes.ts';
import { identityBlob, identityResponse } from '#lib/auth/identity.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint(routeOf('GET', '/api/auth/identity'), { responses: { 200: identityResponse } }, (req) => identityBlob(req.session));
