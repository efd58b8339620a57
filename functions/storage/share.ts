import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { createShare, shareInput } from '#lib/storage/share-links.ts';
import { shareAnswer } from '#lib/storage/responses.ts';

export const handler = endpoint(routeOf('POST', '/api/storage/share'), { body: shareInput, responses: { 200: shareAnswer } }, async (req) =>
  createShare(req.session!.userId, req.body),
);
