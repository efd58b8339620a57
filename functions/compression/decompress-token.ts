import { routeOf } from '#functions/routes.ts';
import { decompressToken, tokenInput } from '#lib/compression/compression.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { decompressAnswer } from '#lib/compression/responses.ts';

export const handler = endpoint(routeOf('POST', '/api/compression/decompress-token'), { body: tokenInput, responses: { 200: decompressAnswer } }, async (req) => decompressToken(req.session!.userId, req.body));
