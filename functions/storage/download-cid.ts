import * as z from 'zod';
import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { download, downloadReply } from '#lib/storage/downloads.ts';
import { ownedFileByCid } from '#lib/storage/files.ts';
import { proofHeaders } from '#lib/storage/proof.ts';
import { downloadAnswers } from '#lib/storage/responses.ts';

/** Variant A: the proof travels in `X-ZK-Proof` and `X-ZK-Public-Signals` (JSON), a GET having no body. */
export const handler = endpoint(
  routeOf('GET', '/api/storage/download/:cid'),
  { params: z.object({ cid: z.string().min(1).max(128) }), responses: downloadAnswers },
  async (req) => {
    const lookup = ownedFileByCid(req.session!.userId, req.params.cid);
    const { proof, publicSignals } = await proofHeaders(req.headers, lookup);
    return downloadReply(await download(lookup, proof, publicSignals));
  },
);
