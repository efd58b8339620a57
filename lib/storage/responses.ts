import * as z from 'zod';
import { bare, bytesResponse, redirectResponse } from '#lib/openapi/responses.ts';

/** The storage routes' answers (before the flat envelope unless marked bare), for the OpenAPI document. */
const checksum = z.string().regex(/^sha256:[0-9a-f]{64}$/);
const fileA = { id: z.string(), cid: z.string(), filename: z.string(), size: z.number().int() };
const fileB = { cid: z.string(), fileId: z.string(), originalName: z.string(), originalSize: z.number().int(), zkEnabled: z.boolean() };

export const uploadAnswer = z.union([z.object({ ...fileA, checksum }), z.object(fileB)]);
export const uploadUrlAnswer = z.object({
  uploadId: z.string(),
  url: z.string(),
  expiresAt: z.iso.datetime(),
  method: z.literal('PUT'),
  headers: z.object({ 'content-type': z.literal('application/octet-stream'), 'if-none-match': z.literal('*') }),
});
/** Both lists end with the next page's cursor, null on the last page. */
const nextCursor = z.string().nullable();
export const listAnswer = z.object({ files: z.array(z.object({ ...fileA, createdAt: z.string(), checksum })), nextCursor });
export const filesAnswer = bare(
  z.object({
    files: z.array(
      z.object({
        id: z.string(),
        cid: z.string(),
        originalName: z.string(),
        originalSize: z.number().int(),
        zkEnabled: z.boolean(),
        createdAt: z.string(),
        iv: z.string().optional(),
        salt: z.string().optional(),
      }),
    ),
    nextCursor,
  }),
);
export const downloadAnswers = {
  200: bytesResponse('application/octet-stream', 'The ciphertext (`Content-Disposition: attachment`, `X-Checksum-SHA256`).'),
  302: redirectResponse('Files above 4 MiB: a presigned GET of a verified copy.'),
};
export const trustlessCarAnswers = {
  200: bytesResponse('application/vnd.ipld.car', 'A CARv1 of the whole DAG under the CID (every block checkable against its CID).'),
  302: redirectResponse('DAGs above 4 MiB: a presigned GET of the assembled CAR.'),
};
export const deletedAnswer = z.object({ deleted: z.literal(true) });
export const deletedMessageAnswer = z.object({ message: z.string() });
export const shareAnswer = z.object({ shareToken: z.string(), shareUrl: z.string(), expiresAt: z.iso.datetime() });
export const sharedAnswer = z.object({
  file: z.object({ cid: z.string(), filename: z.string(), size: z.number().int(), iv: z.string().optional(), salt: z.string().optional() }),
  expiresAt: z.iso.datetime(),
});
export const verifyAnswer = z.object({ valid: z.boolean() });
