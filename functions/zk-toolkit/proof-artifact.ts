import * as z from 'zod';
import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { binary, reply } from '#lib/http/reply.ts';
import { artifactDownload } from '#lib/zk/artifact-download.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/**
 * GET /api/zk-toolkit/proof/circuits/:name/:artifact (`artifact`: `wasm`, `zkey` or `vkey`) →
 * the file's bytes (application/wasm, application/octet-stream, application/json), cacheable
 * for a year with the file's sha256 as ETag; `If-None-Match` with that ETag → 304. Unknown
 * circuit or artifact: 404 NOT_FOUND.
 */
const params = z.object({ name: z.string(), artifact: z.string() });

export const handler = endpoint(routeOf('GET', '/api/zk-toolkit/proof/circuits/:name/:artifact'), { params, responses: toolkitAnswers.artifact }, (req) => {
  const { bytes, headers } = artifactDownload(req.params.name, req.params.artifact);
  const tags = (req.headers['if-none-match'] ?? '').split(',').map((t) => t.trim().replace(/^W\//, ''));
  if (tags.includes(headers.etag!) || tags.includes('*'))
    return reply(304, undefined, { headers: { etag: headers.etag!, 'cache-control': headers['cache-control']! } });
  return binary(bytes, headers);
});
