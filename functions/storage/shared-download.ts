import * as z from 'zod';
import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { download, downloadReply } from '#lib/storage/downloads.ts';
import { downloadAnswers } from '#lib/storage/responses.ts';
import { sharedFileRecord } from '#lib/storage/share-links.ts';

const body = z.object({ proof: z.unknown().optional(), publicSignals: z.unknown().optional() });

/** Public, the token being the capability: a proof of the file password → the ciphertext, as the owner's download. */
export const handler = endpoint(
  routeOf('POST', '/api/storage/shared/:token/download'),
  { params: z.object({ token: z.string().max(128) }), body, responses: downloadAnswers },
  async (req) => downloadReply(await download(sharedFileRecord(req.params.token), req.body.proof, req.body.publicSignals)),
);
