import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { listMine, listQuery, listResponse } from '#lib/attest/attestations.ts';

/** GET /api/attest?limit&cursor: the caller's attestations, newest first. */
export const handler = endpoint(routeOf('GET', '/api/attest'), { query: listQuery, responses: { 200: listResponse } }, (req) =>
  listMine(req.session!.userId, req.query),
);
