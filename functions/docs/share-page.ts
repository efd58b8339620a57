import * as z from 'zod';
import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { binary } from '#lib/http/reply.ts';
import { bytesResponse } from '#lib/openapi/responses.ts';
import { WEB_POLICY, sharePage } from '#lib/web/bundle.ts';

/** A share link's page: the file's name and size, the file password, decrypted in the page (lib/web/share.ts). */
export const handler = endpoint(
  routeOf('GET', '/share/:token'),
  {
    params: z.object({ token: z.string().max(128) }),
    responses: { 200: bytesResponse('text/html', 'The share page (the same for every token: its script reads the token from the address).') },
  },
  () =>
    binary(sharePage(), {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': WEB_POLICY,
      'cache-control': 'public, max-age=300',
      'referrer-policy': 'no-referrer',
    }),
);
