import { routeOf } from '#functions/routes.ts';
import { decompressNative, nativeInput } from '#lib/compression/compression.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint(routeOf('POST', '/api/compression/decompress-native'), { body: nativeInput }, async (req) => decompressNative(req.session!.userId, req.body));
