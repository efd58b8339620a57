import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { listMine, shareLinksAnswer, shareLinksQuery } from '#lib/storage/share-links.ts';

/** The caller's share links, newest first, paginated; never a token. */
export const handler = endpoint(routeOf('GET', '/api/storage/shares'), { query: shareLinksQuery, responses: { 200: shareLinksAnswer } }, async (req) =>
  listMine(req.session!.userId, req.query),
);
