import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { listFiles, shapeA } from '#lib/storage/files.ts';
import { listAnswer } from '#lib/storage/responses.ts';

/** Variant A: `{success, files}`. */
export const handler = endpoint(routeOf('GET', '/api/storage/list'), { responses: { 200: listAnswer } }, async (req) => ({
  files: (await listFiles(req.session!.userId)).map(shapeA),
}));
