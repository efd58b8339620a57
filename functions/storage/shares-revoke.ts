import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { revokeMine, revokeShareAnswer, shareLinkParams } from '#lib/storage/share-links.ts';

/** Revokes one of the caller's share links; another user's → 404 as an unknown one. */
export const handler = endpoint(routeOf('DELETE', '/api/storage/shares/:id'), { params: shareLinkParams, responses: { 200: revokeShareAnswer } }, async (req) =>
  revokeMine(req.session!.userId, req.params.id),
);
