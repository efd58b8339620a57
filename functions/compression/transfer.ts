import { routeOf } from '#functions/routes.ts';
import { transfer, transferInput } from '#lib/compression/compression.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { transferAnswer } from '#lib/compression/responses.ts';

export const handler = endpoint(routeOf('POST', '/api/compression/transfer'), { body: transferInput, responses: { 200: transferAnswer } }, async (req) => transfer(req.session!.userId, req.body));
