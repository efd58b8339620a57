import { routeOf } from '#functions/routes.ts';
import { compressNative, nativeInput } from '#lib/compression/compression.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { compressNativeAnswer } from '#lib/compression/responses.ts';

export const handler = endpoint(routeOf('POST', '/api/compression/compress-native'), { body: nativeInput, responses: { 200: compressNativeAnswer } }, async (req) => compressNative(req.session!.userId, req.body));
