import { routeOf } from '#functions/routes.ts';
import { transfer, transferInput } from '#lib/compression/compression.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint(routeOf('POST', '/api/compression/transfer'), { body: transferInput }, async (req) => transfer(req.session!.userId, req.body));
