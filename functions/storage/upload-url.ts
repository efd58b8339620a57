import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { createUploadUrl, uploadUrlInput } from '#lib/storage/uploads.ts';
import { uploadUrlAnswer } from '#lib/storage/responses.ts';

export const handler = endpoint(
  routeOf('POST', '/api/storage/upload-url'),
  { body: uploadUrlInput.optional(), responses: { 200: uploadUrlAnswer } },
  async (req) => createUploadUrl(req.session!.userId, req.body ?? {}),
);
