import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { circuitListing } from '#lib/zk/artifact-download.ts';
import { DEFAULT_CIRCUIT } from '#lib/zk/circuits.ts';
import { toolkitAnswers } from '#lib/zk/toolkit/responses.ts';

/**
 * GET /api/zk-toolkit/proof/circuits → `defaultCircuit` and `circuits`: each with its name,
 * description, public signals and private inputs by name, constraint count, and the `url`,
 * size and sha256 of its `.wasm`, `.zkey` and verification key, so that a client can prove
 * on its own machine.
 */
export const handler = endpoint(routeOf('GET', '/api/zk-toolkit/proof/circuits'), { responses: { 200: toolkitAnswers.proofCircuits } }, () => ({
  defaultCircuit: DEFAULT_CIRCUIT,
  circuits: circuitListing(),
}));
