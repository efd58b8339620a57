import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { binary } from '#lib/http/reply.ts';
import { bytesResponse } from '#lib/openapi/responses.ts';
import { favicon } from '#lib/web/favicon.ts';

const icon = favicon();

/** The site's icon (lib/web/favicon.ts). */
export const handler = endpoint(routeOf('GET', '/favicon.ico'), { responses: { 200: bytesResponse('image/x-icon', 'The site icon (32×32).') } }, () =>
  binary(icon, { 'content-type': 'image/x-icon', 'cache-control': 'public, max-age=86400' }),
);
