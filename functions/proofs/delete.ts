import * as z from 'zod';
import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { deleteProof } from '#lib/proofs/history.ts';
import { proofIdParams } from '#lib/proofs/routes.ts';

/** DELETE /api/proofs/:id: removes one of the caller's records. */
export const handler = endpoint(
  routeOf('DELETE', '/api/proofs/:id'),
  { params: proofIdParams, responses: { 200: z.object({ deleted: z.literal(true) }) } },
  async (req) => {
    await deleteProof(req.session!.userId, req.params.id);
    return { deleted: true as const };
  },
);
