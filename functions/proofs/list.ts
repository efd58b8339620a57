import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { listPage, listProofsQuery, proofListResponse } from '#lib/proofs/routes.ts';

/** GET /api/proofs?type&from&to&limit&cursor: the caller's proof records, newest first. */
export const handler = endpoint(routeOf('GET', '/api/proofs'), { query: listProofsQuery, responses: { 200: proofListResponse } }, (req) =>
  listPage(req.session!.userId, req.query),
);
