import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { publicKeyOf, signPoseidon, verifyPoseidon } from '#lib/attest/eddsa.ts';
import { attestationHash, fieldOf, scopeSignal } from '#lib/attest/fields.ts';
import { SNARK_FIELD_ORDER } from '#lib/zk/groth16.ts';

/** EdDSA-Poseidon on Baby JubJub through circomlibjs, and the signed attestation hash. */
describe('issuer signatures', () => {
  const key = randomBytes(32);
  const fields = {
    id: '6f1c2b8e-4d3a-4b5c-9e7f-0a1b2c3d4e5f',
    schema: 'age-over-18',
    claimFields: [123n, 18n, 150n],
    nullifier: 77n,
    scopeSignal: scopeSignal('age-over-18', 'default'),
    issuedAtSeconds: 1_700_000_000,
    expiresAtSeconds: 1_731_536_000,
  };

  it('signs and verifies the attestation hash; any changed field, signature part or key is refused', async () => {
    const pub = await publicKeyOf(key);
    const msg = await attestationHash(fields);
    expect(msg < SNARK_FIELD_ORDER).toBe(true);
    const sig = await signPoseidon(key, msg);
    expect(await verifyPoseidon(msg, sig, pub)).toBe(true);

    expect(await verifyPoseidon(await attestationHash({ ...fields, claimFields: [123n, 17n, 150n] }), sig, pub)).toBe(false);
    expect(await verifyPoseidon(await attestationHash({ ...fields, expiresAtSeconds: fields.expiresAtSeconds + 1 }), sig, pub)).toBe(false);
    expect(await verifyPoseidon(msg, { ...sig, S: (BigInt(sig.S) + 1n).toString() }, pub)).toBe(false);
    expect(await verifyPoseidon(msg, { ...sig, R8: { x: sig.R8.y, y: sig.R8.x } }, pub)).toBe(false);
    expect(await verifyPoseidon(msg, sig, await publicKeyOf(randomBytes(32)))).toBe(false);
    // Out-of-range coordinates are refused, not reduced.
    expect(await verifyPoseidon(msg, { ...sig, R8: { x: (BigInt(sig.R8.x) + SNARK_FIELD_ORDER).toString(), y: sig.R8.y } }, pub)).toBe(false);
  }, 60_000);

  it('field encodings stay below 2^248 and the scope signal binds the schema', () => {
    expect(fieldOf('x') < 2n ** 248n).toBe(true);
    expect(scopeSignal('age-over-18', 'vote')).not.toBe(scopeSignal('range', 'vote'));
    expect(scopeSignal('age-over-18', 'vote')).not.toBe(scopeSignal('age-over-18', 'vote2'));
  });
});
