import { routeOf } from '#functions/routes.ts';
import { mintTo, mintToInput } from '#lib/compression/compression.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { mintToAnswer } from '#lib/compression/responses.ts';

export const handler = endpoint(routeOf('POST', '/api/compression/mint-to'), { body: mintToInput, responses: { 200: mintToAnswer } }, async (req) => mintTo(req.session!.userId, req.body));
