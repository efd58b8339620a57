import { routeOf } from '#functions/routes.ts';
import { identityBlob } from '#lib/auth/identity.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint(routeOf('GET', '/api/auth/identity'), {}, (req) => identityBlob(req.session));
