import * as z from 'zod';
import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { DEFAULT_CIRCUIT } from '#lib/zk/circuits.ts';
import { decimalString } from '#lib/zk/decimal.ts';
import { generateFor } from '#lib/proofs/toolkit.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/**
 * POST /api/zk-toolkit/proof/generate: `inputs` (named decimal strings, arrays for array
 * signals), optional `circuit` (default `preimage`) → `proof` {pi_a, pi_b, pi_c, protocol,
 * curve} and `publicSignals`. Inputs that do not fit or satisfy the circuit: 400 PROOF_FAILED
 * with the reason. The curve and the circuit's wasm/zkey stay cached in the warm instance.
 */
const schema = z.object(
  {
    inputs: z.record(z.string(), z.union([decimalString, z.array(decimalString).max(1024)], { error: 'must be a decimal string or an array of them' }), {
      error: (i) => (i.input === undefined ? 'is required' : 'must be an object of named decimal strings'),
    }),
    circuit: z.string({ error: 'must be a circuit name (GET /api/zk-toolkit/proof/circuits)' }).max(64).default(DEFAULT_CIRCUIT),
  },
  { error: 'must be a JSON object' },
);

export const handler = endpoint(routeOf('POST', '/api/zk-toolkit/proof/generate'), { body: schema, responses: { 200: toolkitAnswers.proofGenerate } }, (req) =>
  generateFor(req.session?.userId, req.body.circuit, req.body.inputs),
);
