import * as z from 'zod';
import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ownedFile } from '#lib/storage/files.ts';
import { removeRecord } from '#lib/storage/pins.ts';
import { deletedAnswer } from '#lib/storage/responses.ts';

export const handler = endpoint(
  routeOf('DELETE', '/api/storage/:id'),
  { params: z.object({ id: z.string().min(1) }), responses: { 200: deletedAnswer } },
  async (req) => {
    await removeRecord(await ownedFile(req.session!.userId, req.params.id));
    return { deleted: true };
  },
);
