import { createHash } from 'node:crypto';
import { errors } from '#lib/errors.ts';
import { poseidon } from '#lib/zk/poseidon.ts';
import { isCanonicalUuid, UUID_RULE } from './canonical.ts';

/**
 * How strings become field elements for the Poseidon hashes, and the scope signal. All values
 * are below 2^248, hence below the BN254 scalar field order r: nothing is ever reduced.
 */

/** The first 31 bytes of sha256(text), big-endian. */
export function fieldOf(text: string): bigint {
  return BigInt(`0x${createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 62)}`);
}

/** A uuid's 128 bits, from its canonical form only (another spelling of the same bits would sign alike). */
export function uuidField(id: string): bigint {
  if (!isCanonicalUuid(id)) throw errors.invalidInput(`${id.slice(0, 40)} is not ${UUID_RULE}`);
  return BigInt(`0x${id.replace(/-/g, '')}`);
}

/**
 * The circuits' public `scope` input: fieldOf("shroud-attest-scope:v1" NUL schema NUL scope).
 * Binding the schema in makes a nullifier of one schema useless in another.
 */
export const scopeSignal = (schema: string, scope: string): bigint => fieldOf(`shroud-attest-scope:v1\u0000${schema}\u0000${scope}`);

export const ATTESTATION_TAG = fieldOf('shroud-attestation:v1');
export const REVOCATION_TAG = fieldOf('shroud-attestation-revocation:v1');

export interface SignedFields {
  id: string;
  schema: string;
  /** The schema's claim values as field elements, in the schema's order. */
  claimFields: bigint[];
  nullifier: bigint;
  scopeSignal: bigint;
  issuedAtSeconds: number;
  expiresAtSeconds: number;
}

/**
 * What the issuer signs:
 *   Poseidon(TAG, uuid, fieldOf("schema:" + schema), Poseidon(claimFields), nullifier, scope, issuedAt, expiresAt)
 * with times in epoch seconds. Eight inputs, each a field element: a circuit can recompute it
 * and check the signature with circomlib's EdDSAPoseidonVerifier.
 */
export async function attestationHash(f: SignedFields): Promise<bigint> {
  const claimsHash = await poseidon(f.claimFields);
  return poseidon([
    ATTESTATION_TAG,
    uuidField(f.id),
    fieldOf(`schema:${f.schema}`),
    claimsHash,
    f.nullifier,
    f.scopeSignal,
    BigInt(f.issuedAtSeconds),
    BigInt(f.expiresAtSeconds),
  ]);
}

/** What the issuer signs to revoke an attestation (an operator's revocation): Poseidon(TAG, uuid). */
export const revocationMessage = (id: string): Promise<bigint> => poseidon([REVOCATION_TAG, uuidField(id)]);
