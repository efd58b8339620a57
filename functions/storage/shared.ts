import * as z from 'zod';
import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { resolveShare } from '#lib/storage/share-links.ts';
import { sharedAnswer } from '#lib/storage/responses.ts';

/** Public: the token is the capability. */
export const handler = endpoint(
  routeOf('GET', '/api/storage/shared/:token'),
  { params: z.object({ token: z.string() }), responses: { 200: sharedAnswer } },
  async (req) => resolveShare(req.params.token),
);
