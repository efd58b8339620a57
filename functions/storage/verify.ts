import * as z from 'zod';
import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { commitmentSchema, proves } from '#lib/storage/proof.ts';
import { verifyAnswer } from '#lib/storage/responses.ts';

const body = z.object({ proof: z.unknown(), publicSignals: z.unknown(), commitment: commitmentSchema });

export const handler = endpoint(routeOf('POST', '/api/storage/verify'), { body, responses: { 200: verifyAnswer } }, async (req) => ({
  valid: await proves(req.body.proof, req.body.publicSignals, req.body.commitment),
}));
