/**
 * circomlib's MiMC7 hash. Inputs are range-checked here because circomlibjs reduces mod r
 * silently; outputs match circom's circuits bit for bit (same library, same parameters).
 */
import { getMimc7 } from './circomlib/mimc7.ts';
import { assertField, fieldElement, toHex32 } from './decimal.ts';

/** MiMC7, 91 rounds, circomlib's seed "mimc": circomlib's MiMC7(91) template. */
export async function mimc7(x: bigint, key: bigint): Promise<bigint> {
  assertField('input', x);
  assertField('key', key);
  const m = await getMimc7();
  return m.F.toObject(m.hash(x, key));
}

// ---- request level: validated request fields in, the response `data` out ----

export type MimcRequest = { input: string; key?: string };
export type MimcData = { algorithm: 'mimc7'; hash: string; input: string; key: string };

export async function hashMimc(req: MimcRequest): Promise<MimcData> {
  const x = fieldElement('input', req.input);
  const k = req.key === undefined ? 0n : fieldElement('key', req.key);
  return { algorithm: 'mimc7', hash: toHex32(await mimc7(x, k)), input: x.toString(), key: k.toString() };
}
