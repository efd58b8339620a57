import { routeOf } from '#functions/routes.ts';
import { mintTo, mintToInput } from '#lib/compression/compression.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint(routeOf('POST', '/api/compression/mint-to'), { body: mintToInput }, async (req) => mintTo(req.session!.userId, req.body));
