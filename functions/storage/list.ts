import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { fileListQuery, pageFiles, shapeA } from '#lib/storage/files.ts';
import { listAnswer } from '#lib/storage/responses.ts';

/** Variant A: `{success, files, nextCursor}`, a page of up to 1000 files, newest first. */
export const handler = endpoint(routeOf('GET', '/api/storage/list'), { query: fileListQuery, responses: { 200: listAnswer } }, async (req) => {
  const { files, nextCursor } = await pageFiles(req.session!.userId, req.query);
  return { files: files.map(shapeA), nextCursor };
});
