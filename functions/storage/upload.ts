import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { reply } from '#lib/http/reply.ts';
import { upload, uploadResponse } from '#lib/storage/uploads.ts';
import { uploadAnswer } from '#lib/storage/responses.ts';

/** Multipart (both variants, or `uploadId` to finalise a presigned upload): parsed by lib/storage, no JSON body. */
export const handler = endpoint(routeOf('POST', '/api/storage/upload'), { responses: { 201: uploadAnswer } }, async (req) =>
  reply(201, uploadResponse(await upload(req.session!.userId, req.headers['content-type'], () => req.requestBody()))),
);
