import { routeOf } from '#functions/routes.ts';
import { decompressNative, nativeInput } from '#lib/compression/compression.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { decompressAnswer } from '#lib/compression/responses.ts';

export const handler = endpoint(routeOf('POST', '/api/compression/decompress-native'), { body: nativeInput, responses: { 200: decompressAnswer } }, async (req) => decompressNative(req.session!.userId, req.body));
