import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { proofStatsResponse, stats } from '#lib/proofs/routes.ts';

/** GET /api/proofs/stats: the caller's record counts by type and by result. */
export const handler = endpoint(routeOf('GET', '/api/proofs/stats'), { responses: { 200: proofStatsResponse } }, (req) => stats(req.session!.userId));
