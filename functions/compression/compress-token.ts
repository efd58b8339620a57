import { routeOf } from '#functions/routes.ts';
import { compressToken, tokenInput } from '#lib/compression/compression.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { compressTokenAnswer } from '#lib/compression/responses.ts';

export const handler = endpoint(routeOf('POST', '/api/compression/compress-token'), { body: tokenInput, responses: { 200: compressTokenAnswer } }, async (req) => compressToken(req.session!.userId, req.body));
