/**
 * The Groth16 proof behind an attestation, made here as `toolkit prove` would make it but in the
 * client's own process, so the private values (age, secret, blinding) never leave it:
 * `POST /api/attest` gets only the proof and its public signals. The circuit's artifacts come from
 * the API (checked against their sha256); the scope signal is computed as lib/attest/fields.ts
 * does, with WebCrypto. Schemas: `age-over-18` and `range` (range_scoped), `preimage`
 * (preimage_scoped), `group-member` (membership_scoped: the group's public commitments give the
 * Merkle path of Poseidon(secret), lib/zk/merkle.ts builds it as the circuit reads it).
 */
import type * as Snarkjs from 'snarkjs'; // typed by lib/zk/snarkjs.d.ts
import { ShroudError, type Answer, type ShroudClient } from './api.ts';
import { circuitArtifacts } from './circuit-artifacts.ts';
import { BN254_R as R } from '#lib/zk/bn254.ts';

/** The first 31 bytes of SHA-256(UTF-8 text), big-endian (below r). */
async function fieldOf(text: string): Promise<bigint> {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return BigInt(`0x${Array.from(d.subarray(0, 31), (b) => b.toString(16).padStart(2, '0')).join('')}`);
}

/** The circuits' public `scope` input: fieldOf("shroud-attest-scope:v1" NUL schema NUL scope). */
export const scopeSignal = (schema: string, scope: string): Promise<bigint> => fieldOf(`shroud-attest-scope:v1\u0000${schema}\u0000${scope}`);

/** A random blinding: 31 random bytes, below r. */
const randomField = () => BigInt(`0x${Array.from(crypto.getRandomValues(new Uint8Array(31)), (b) => b.toString(16).padStart(2, '0')).join('')}`);

const usage = (message: string) => new ShroudError('USAGE', 0, message);
const fieldArg = (v: string | undefined, what: string): bigint => {
  if (v === undefined || !/^\d{1,78}$/.test(v)) throw usage(`${what}: a non-negative decimal integer is required`);
  const n = BigInt(v);
  if (n >= R) throw usage(`${what}: must be below the BN254 field order`);
  return n;
};

/** What the subject knows, by schema: a value (and bounds for `range`), or a secret. */
export interface AttestSecrets {
  value?: string;
  min?: string;
  max?: string;
  secret?: string;
  /** group-member: the group id (`POST /api/attest/groups`). */
  group?: string;
  /** Default: a fresh random one (returned: it opens the commitment). */
  blinding?: string;
}

export type SchemaListing = Answer<'attestSchemas'>['schemas'][number] & {
  publicSignals?: { index: number; name: string; source: string; value?: string }[];
  needsGroup?: boolean;
};

export interface AttestProof {
  proof: { pi_a: string[]; pi_b: string[][]; pi_c: string[]; protocol: 'groth16'; curve: 'bn128' };
  publicSignals: string[];
  /** The blinding used (range circuits), to keep. */
  blinding?: string;
}

/** The circuit inputs of a schema: schema-fixed signals from the listing, the scope signal, the subject's values. */
async function inputsOf(
  client: ShroudClient,
  schema: SchemaListing,
  scope: string,
  s: AttestSecrets,
): Promise<{ inputs: Record<string, string | string[]>; blinding?: string }> {
  const fixed = Object.fromEntries((schema.publicSignals ?? []).filter((p) => p.source === 'schema' && p.value !== undefined).map((p) => [p.name, p.value!]));
  const scopeInput = (await scopeSignal(schema.id, scope)).toString();
  if (schema.circuit === 'preimage_scoped') return { inputs: { secret: fieldArg(s.secret, '--secret').toString(), scope: scopeInput } };
  if (schema.circuit === 'range_scoped') {
    const blinding = s.blinding !== undefined ? fieldArg(s.blinding, '--blinding') : randomField();
    const bound = (name: 'min' | 'max') => fixed[name] ?? fieldArg(s[name], `--${name}`).toString();
    if (fixed.min !== undefined && s.min !== undefined && s.min !== fixed.min) throw usage(`${schema.id} fixes min = ${fixed.min}`);
    if (fixed.max !== undefined && s.max !== undefined && s.max !== fixed.max) throw usage(`${schema.id} fixes max = ${fixed.max}`);
    return {
      inputs: { value: fieldArg(s.value, '--value').toString(), blinding: blinding.toString(), min: bound('min'), max: bound('max'), scope: scopeInput },
      blinding: blinding.toString(),
    };
  }
  if (schema.circuit === 'membership_scoped') {
    if (!s.group) throw usage(`${schema.id}: --group <id> is required`);
    const secret = fieldArg(s.secret, '--secret');
    // Poseidon's constants load here, not with the module: the CLI imports this for every command.
    const { merklePath, poseidonHash1, poseidonHash2 } = await import('#lib/zk/merkle.ts');
    const commitment = (await poseidonHash1())(secret);
    const { commitments } = await client.api.attestGroupMembers({ params: { id: s.group } });
    const leaves = commitments.map(BigInt);
    const index = leaves.indexOf(commitment);
    if (index < 0)
      throw new ShroudError(
        'NOT_A_MEMBER',
        404,
        `the identity commitment of this secret (${commitment}) is not in group ${s.group}: its owner adds it with \`shroud group add ${s.group} ${commitment}\``,
      );
    const path = merklePath(await poseidonHash2(), leaves, index);
    return { inputs: { secret: secret.toString(), pathElements: path.pathElements.map(String), pathIndices: path.pathIndices.map(String), scope: scopeInput } };
  }
  throw usage(
    `${schema.id}: this client does not make ${schema.circuit} proofs yet${schema.needsGroup ? " (a group membership needs the group's Merkle path)" : ''}`,
  );
}

/** The proof for `POST /api/attest` of `schema` in `scope`; a value outside the bounds cannot be proved (PROOF_FAILED). */
export async function attestationProof(client: ShroudClient, schemaId: string, scope: string, secrets: AttestSecrets): Promise<AttestProof> {
  const { schemas } = await client.api.attestSchemas();
  const schema = (schemas as SchemaListing[]).find((x) => x.id === schemaId);
  if (!schema) throw usage(`unknown schema '${schemaId.slice(0, 40)}': one of ${schemas.map((x) => x.id).join(', ')}`);
  const { inputs, blinding } = await inputsOf(client, schema, scope, secrets);
  const { wasm, zkey } = await circuitArtifacts(client, schema.circuit);
  // snarkjs loads here, not with the module: loading it takes seconds and the CLI imports this for every command.
  const snarkjs = await import('snarkjs');
  let out: Awaited<ReturnType<typeof Snarkjs.groth16.fullProve>>;
  try {
    out = await snarkjs.groth16.fullProve(inputs, wasm, zkey);
  } catch (e) {
    // The witness fails its constraints: a value outside the bounds, an input of the wrong size.
    throw new ShroudError('PROOF_FAILED', 0, `no proof: the values do not satisfy ${schema.circuit} (${(e as Error).message.split('\n')[0]!.slice(0, 120)})`);
  }
  const { proof, publicSignals } = out;
  return {
    proof: { pi_a: proof.pi_a, pi_b: proof.pi_b, pi_c: proof.pi_c, protocol: 'groth16', curve: 'bn128' },
    publicSignals,
    ...(blinding ? { blinding } : {}),
  };
}
