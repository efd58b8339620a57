import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';
import { fileListQuery, pageFiles, shapeB } from '#lib/storage/files.ts';
import { filesAnswer } from '#lib/storage/responses.ts';

/** Variant B: bare `{files, nextCursor}` (the contract shows `{files}`), a page of up to 1000 files, newest first. */
export const handler = endpoint(routeOf('GET', '/api/storage/files'), { query: fileListQuery, responses: { 200: filesAnswer } }, async (req) => {
  const { files, nextCursor } = await pageFiles(req.session!.userId, req.query);
  return reply(200, { files: files.map(shapeB), nextCursor }, { bare: true });
});
