import { routeOf } from '#functions/routes.ts';
import { compressNative, nativeInput } from '#lib/compression/compression.ts';
import { compressNativeAnswer, submittedAnswer } from '#lib/compression/responses.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';

/** 200 once the chain confirmed it; 202 `submitted` when it was sent and the chain has not settled it yet (the journal will). */
export const handler = endpoint(
  routeOf('POST', '/api/compression/compress-native'),
  { body: nativeInput, responses: { 200: compressNativeAnswer, 202: submittedAnswer } },
  async (req) => {
    const out = await compressNative(req.session!.userId, req.body);
    return 'status' in out ? reply(202, out) : out;
  },
);
