/**
 * circomlib's Poseidon hash. Inputs are range-checked here because circomlibjs reduces mod r
 * silently; outputs match circom's circuits bit for bit (same library, same parameters).
 */
import { errors } from '#lib/errors.ts';
import { getPoseidon } from './circomlib/poseidon.ts';
import { assertField, fieldElement, toHex32 } from './decimal.ts';

/** circomlibjs's wasm Poseidon (and circomlib's circuit) take 1 to 16 inputs. */
export const POSEIDON_MAX_INPUTS = 16;
export async function poseidon(inputs: readonly bigint[]): Promise<bigint> {
  if (inputs.length < 1 || inputs.length > POSEIDON_MAX_INPUTS) {
    throw errors.invalidInput(`inputs: must hold 1 to ${POSEIDON_MAX_INPUTS} elements`);
  }
  // circomlibjs would reduce an out-of-range bigint silently: refuse it here too.
  inputs.forEach((v, i) => assertField(`inputs.${i}`, v));
  const h = await getPoseidon();
  return h.F.toObject(h([...inputs]));
}

// ---- request level: validated request fields in, the response `data` out ----

export type PoseidonRequest = { input?: string; inputs?: string[] };
export type PoseidonData = { algorithm: 'poseidon'; hash: string; input: string } | { algorithm: 'poseidon'; hash: string; inputs: string[] };

export async function hashPoseidon(req: PoseidonRequest): Promise<PoseidonData> {
  if ((req.input === undefined) === (req.inputs === undefined)) {
    throw errors.invalidInput('input: send exactly one of input (one element) or inputs (an array of 1 to 16)');
  }
  if (req.input !== undefined) {
    const x = fieldElement('input', req.input);
    return { algorithm: 'poseidon', hash: toHex32(await poseidon([x])), input: x.toString() };
  }
  const raw = req.inputs!;
  if (!Array.isArray(raw) || raw.length < 1 || raw.length > POSEIDON_MAX_INPUTS) {
    throw errors.invalidInput(`inputs: must be an array of 1 to ${POSEIDON_MAX_INPUTS} decimal strings`);
  }
  const xs = raw.map((v, i) => fieldElement(`inputs.${i}`, v));
  return { algorithm: 'poseidon', hash: toHex32(await poseidon(xs)), inputs: xs.map(String) };
}
