import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';
import { listFiles, shapeB } from '#lib/storage/files.ts';
import { filesAnswer } from '#lib/storage/responses.ts';

/** Variant B: bare `{files}`, as API.md shows it. */
export const handler = endpoint(routeOf('GET', '/api/storage/files'), { responses: { 200: filesAnswer } }, async (req) =>
  reply(200, { files: (await listFiles(req.session!.userId)).map(shapeB) }, { bare: true }),
);
