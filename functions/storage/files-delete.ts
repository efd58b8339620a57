import * as z from 'zod';
import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ownedFile } from '#lib/storage/files.ts';
import { removeRecord } from '#lib/storage/pins.ts';
import { deletedMessageAnswer } from '#lib/storage/responses.ts';

export const handler = endpoint(
  routeOf('DELETE', '/api/storage/files/:fileId'),
  { params: z.object({ fileId: z.string().min(1) }), responses: { 200: deletedMessageAnswer } },
  async (req) => {
    await removeRecord(await ownedFile(req.session!.userId, req.params.fileId));
    return { message: 'File deleted' };
  },
);
