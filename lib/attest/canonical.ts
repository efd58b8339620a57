import { BN254_R } from '#lib/zk/bn254.ts';

/**
 * The one written form of every value an attestation signs or a verifier checks. The signed hash
 * is over numbers (BigInt, epoch seconds, a uuid's 128 bits), so without these rules "0" + N, N + r,
 * a time with other milliseconds or a uuid with its dashes moved would all carry the issuer's
 * signature: a value is accepted only in the form the issuer writes it.
 *   - decimal: no sign, no leading zero (0 is "0"), below the BN254 scalar field order r;
 *   - uuid: lowercase hex, 8-4-4-4-12 (what randomUUID writes);
 *   - time: whole seconds from 1970, UTC, milliseconds written as .000 (`new Date(s * 1000).toISOString()`).
 */
const DECIMAL = /^(0|[1-9][0-9]{0,76})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIME = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.000Z$/;

export const isCanonicalDecimal = (v: string): boolean => DECIMAL.test(v) && BigInt(v) < BN254_R;
export const isCanonicalUuid = (v: string): boolean => UUID.test(v);
export const isCanonicalTime = (v: string): boolean => {
  if (!TIME.test(v)) return false;
  const ms = Date.parse(v);
  // Not before 1970: the signed hash takes epoch seconds as a field element, never negative.
  return Number.isFinite(ms) && ms >= 0 && new Date(ms).toISOString() === v;
};

export const DECIMAL_RULE = 'a canonical decimal (no sign, no leading zero, below r)';
export const UUID_RULE = 'a canonical uuid (lowercase, 8-4-4-4-12)';
export const TIME_RULE = 'a canonical time (UTC, whole seconds from 1970, as YYYY-MM-DDTHH:MM:SS.000Z)';

/** The parts of an attestation whose form is checked (every string as presented). */
export interface PresentedFields {
  id: string;
  claims: Record<string, string>;
  nullifier: string;
  issuedAt: string;
  expiresAt: string;
  issuer: { algorithm: string; publicKey: { x: string; y: string } };
  signature: { R8: { x: string; y: string }; S: string };
  hash: string;
}

/** One reason per value not in its canonical form; empty when every value is. A claim named `group` is a uuid, any other a decimal. */
export function nonCanonicalReasons(a: PresentedFields): string[] {
  const reasons: string[] = [];
  const check = (ok: boolean, what: string, rule: string) => {
    if (!ok) reasons.push(`${what} is not ${rule}`);
  };
  check(isCanonicalUuid(a.id), 'id', UUID_RULE);
  for (const [name, v] of Object.entries(a.claims)) {
    if (name === 'group') check(isCanonicalUuid(v), 'claims.group', UUID_RULE);
    else check(isCanonicalDecimal(v), `claims.${name}`, DECIMAL_RULE);
  }
  check(isCanonicalDecimal(a.nullifier), 'nullifier', DECIMAL_RULE);
  check(isCanonicalTime(a.issuedAt), 'issuedAt', TIME_RULE);
  check(isCanonicalTime(a.expiresAt), 'expiresAt', TIME_RULE);
  check(a.issuer.algorithm === 'eddsa-poseidon-babyjubjub', 'issuer.algorithm', '"eddsa-poseidon-babyjubjub"');
  check(isCanonicalDecimal(a.issuer.publicKey.x), 'issuer.publicKey.x', DECIMAL_RULE);
  check(isCanonicalDecimal(a.issuer.publicKey.y), 'issuer.publicKey.y', DECIMAL_RULE);
  check(isCanonicalDecimal(a.signature.R8.x), 'signature.R8.x', DECIMAL_RULE);
  check(isCanonicalDecimal(a.signature.R8.y), 'signature.R8.y', DECIMAL_RULE);
  check(isCanonicalDecimal(a.signature.S), 'signature.S', DECIMAL_RULE);
  check(isCanonicalDecimal(a.hash), 'hash', DECIMAL_RULE);
  return reasons;
}
