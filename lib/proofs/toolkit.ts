import { DEFAULT_CIRCUIT } from '#lib/zk/circuits.ts';
import { generateProof, verifyProof, type CircuitInputs, type ProofResult } from '#lib/zk/groth16.ts';
import { recordGroth16 } from './history.ts';

/**
 * The toolkit's Groth16 routes with the proof history: the routes are public, so a proof is
 * recorded only when the caller is signed in (userId given). Only the proof and its public
 * signals are recorded, never `inputs`.
 */
export async function generateFor(userId: string | undefined, circuit: string = DEFAULT_CIRCUIT, inputs: CircuitInputs): Promise<ProofResult> {
  const out = await generateProof(circuit, inputs);
  if (userId) await recordGroth16(userId, { type: 'toolkit', action: 'generated', circuit, proof: out.proof, publicSignals: out.publicSignals, valid: true });
  return out;
}

export async function verifyFor(
  userId: string | undefined,
  circuit: string = DEFAULT_CIRCUIT,
  proof: unknown,
  publicSignals: unknown,
): Promise<{ valid: boolean }> {
  const valid = await verifyProof(circuit, proof, publicSignals);
  if (userId) await recordGroth16(userId, { type: 'toolkit', action: 'verified', circuit, proof, publicSignals, valid });
  return { valid };
}
