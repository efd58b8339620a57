import * as z from 'zod';
import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { download, downloadReply } from '#lib/storage/downloads.ts';
import { ownedFile } from '#lib/storage/files.ts';
import { downloadAnswers } from '#lib/storage/responses.ts';

const body = z.object({ fileId: z.string().min(1).max(64), proof: z.unknown().optional(), publicSignals: z.unknown().optional() });

/** Variant B: `{fileId, proof, publicSignals}` → the ciphertext. */
export const handler = endpoint(routeOf('POST', '/api/storage/download'), { body, responses: downloadAnswers }, async (req) =>
  downloadReply(await download(ownedFile(req.session!.userId, req.body.fileId), req.body.proof, req.body.publicSignals)),
);
