import { routeOf } from '#functions/routes.ts';
import { decompressToken, tokenInput } from '#lib/compression/compression.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint(routeOf('POST', '/api/compression/decompress-token'), { body: tokenInput }, async (req) => decompressToken(req.session!.userId, req.body));
