import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { listFiles, shapeA } from '#lib/storage/files.ts';

/** Variant A: `{success, files}`. */
export const handler = endpoint(routeOf('GET', '/api/storage/list'), {}, async (req) => ({
  files: (await listFiles(req.session!.userId)).map(shapeA),
}));
