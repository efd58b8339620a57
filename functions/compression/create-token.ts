import { routeOf } from '#functions/routes.ts';
import { createToken, createTokenInput } from '#lib/compression/compression.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint(routeOf('POST', '/api/compression/create-token'), { body: createTokenInput }, async (req) => createToken(req.session!.userId, req.body));
