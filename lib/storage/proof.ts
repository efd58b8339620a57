import * as z from 'zod';
import { errors } from '#lib/errors.ts';
import { verifyProof } from '#lib/zk/groth16.ts';

export const PASSWORD_CIRCUIT = 'password';

export const commitmentSchema = z.string().regex(/^[0-9]{1,78}$/, 'a decimal string');

/**
 * Whether `proof` proves knowledge of the password behind `commitment`: it must verify against
 * the `password` circuit and its only public signal must be that commitment. A malformed proof
 * or signal list is 400 INVALID_INPUT (from verifyProof), not a failed proof.
 */
export async function proves(proof: unknown, publicSignals: unknown, commitment: string): Promise<boolean> {
  const ok = await verifyProof(PASSWORD_CIRCUIT, proof, publicSignals);
  return ok && Array.isArray(publicSignals) && publicSignals[0] === commitment;
}

/** The same, as a guard: 401 INVALID_PROOF when it does not hold. */
export function requireProof(proof: unknown, publicSignals: unknown, commitment: string): Promise<void> {
  return proofCheck(proof, publicSignals).require(commitment);
}

/**
 * requireProof started before the commitment is known: the pairing check needs only the proof
 * and its signals, so it can run while the file that holds the commitment is looked up. Its
 * outcome counts only through `require` (missing 401, malformed 400, failing 401), and is
 * dropped unread for a file without a password.
 */
export function proofCheck(proof: unknown, publicSignals: unknown): { require(commitment: string): Promise<void> } {
  const verified = proof === undefined || publicSignals === undefined ? undefined : verifyProof(PASSWORD_CIRCUIT, proof, publicSignals);
  verified?.catch(() => undefined);
  return {
    async require(commitment) {
      if (!verified) throw errors.invalidProof('a proof of the file password is required');
      if (!(await verified) || !Array.isArray(publicSignals) || publicSignals[0] !== commitment) throw errors.invalidProof();
    },
  };
}

/** A JSON-valued multipart field or header. */
export function parseJsonField(name: string, value: string | undefined): unknown {
  if (value === undefined || value === '') return undefined;
  try {
    return JSON.parse(value);
  } catch {
    throw errors.invalidInput(`${name}: must be JSON`);
  }
}
