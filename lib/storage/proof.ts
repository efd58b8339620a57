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
 * outcome counts only through `require` (missing 401, malformed 400, failing 401). A caller that
 * does not need it (an unknown file, one without a password) still awaits `settled`, so that no
 * work outlives the request (on Lambda it would resume in the next invocation).
 */
export function proofCheck(proof: unknown, publicSignals: unknown): { require(commitment: string): Promise<void>; settled(): Promise<void> } {
  const verified = proof === undefined || publicSignals === undefined ? undefined : verifyProof(PASSWORD_CIRCUIT, proof, publicSignals);
  verified?.catch(() => undefined);
  return {
    async require(commitment) {
      if (!verified) throw errors.invalidProof('a proof of the file password is required');
      if (!(await verified) || !Array.isArray(publicSignals) || publicSignals[0] !== commitment) throw errors.invalidProof();
    },
    settled: async () => void (await verified?.catch(() => undefined)),
  };
}

/**
 * Variant A's proof headers (`X-ZK-Proof`, `X-ZK-Public-Signals`: JSON). Headers that are not
 * JSON are 400, but only once `lookup` has settled: an unknown or another user's file is 404
 * whatever its headers.
 */
export async function proofHeaders(headers: Record<string, string>, lookup: Promise<unknown>): Promise<{ proof: unknown; publicSignals: unknown }> {
  try {
    return { proof: parseJsonField('X-ZK-Proof', headers['x-zk-proof']), publicSignals: parseJsonField('X-ZK-Public-Signals', headers['x-zk-public-signals']) };
  } catch (e) {
    await lookup;
    throw e;
  }
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
