import * as z from 'zod';
import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { binary } from '#lib/http/reply.ts';
import { exportNdjson, exportProofsQuery } from '#lib/proofs/routes.ts';

/**
 * GET /api/proofs/export?type&from&to: the caller's records as NDJSON (one record a line, newest
 * first), at most EXPORT_MAX_RECORDS; `X-Export-Truncated: true` when more matched.
 */
export const handler = endpoint(routeOf('GET', '/api/proofs/export'), { query: exportProofsQuery, responses: { 200: z.string() } }, async (req) => {
  const out = await exportNdjson(req.session!.userId, req.query);
  return binary(out.body, {
    'content-type': 'application/x-ndjson; charset=utf-8',
    'content-disposition': 'attachment; filename="proofs.ndjson"',
    'x-export-count': String(out.count),
    'x-export-truncated': String(out.truncated),
  });
});
