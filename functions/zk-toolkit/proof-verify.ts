import * as z from 'zod';
import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { DEFAULT_CIRCUIT } from '#lib/zk/circuits.ts';
import { proofSchema } from '#lib/zk/groth16.ts';
import { verifyFor } from '#lib/proofs/toolkit.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/**
 * POST /api/zk-toolkit/proof/verify: `proof` (Groth16, as proof/generate or snarkjs writes it),
 * `publicSignals` (decimal strings), optional `circuit` (default `preimage`) → `valid`. A
 * well-formed proof that does not verify is `valid: false`; a malformed one is 400 INVALID_INPUT
 * naming the field (points off the curve or outside the subgroup included), a signal ≥ r 400
 * FIELD_OVERFLOW. The verification key and the curve stay cached in the warm instance.
 */
const schema = z.object(
  {
    proof: proofSchema,
    publicSignals: z.array(z.string({ error: 'must be a decimal string' }), { error: 'must be an array of decimal strings' }).max(64),
    circuit: z.string({ error: 'must be a circuit name (GET /api/zk-toolkit/proof/circuits)' }).max(64).default(DEFAULT_CIRCUIT),
  },
  { error: 'must be a JSON object' },
);

export const handler = endpoint(routeOf('POST', '/api/zk-toolkit/proof/verify'), { body: schema, responses: { 200: toolkitAnswers.proofVerify } }, (req) =>
  verifyFor(req.session?.userId, req.body.circuit, req.body.proof, req.body.publicSignals),
);
