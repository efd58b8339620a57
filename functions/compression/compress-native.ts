import { routeOf } from '#functions/routes.ts';
import { compressNative, nativeInput } from '#lib/compression/compression.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint(routeOf('POST', '/api/compression/compress-native'), { body: nativeInput }, async (req) => compressNative(req.session!.userId, req.body));
