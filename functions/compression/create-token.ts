import { routeOf } from '#functions/routes.ts';
import { createToken, createTokenInput } from '#lib/compression/compression.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { createTokenAnswer } from '#lib/compression/responses.ts';

export const handler = endpoint(routeOf('POST', '/api/compression/create-token'), { body: createTokenInput, responses: { 200: createTokenAnswer } }, async (req) => createToken(req.session!.userId, req.body));
