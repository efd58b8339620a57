import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import buildEddsa from '../../../node_modules/circomlibjs/src/eddsa.js';
import { publicKeyOf, signPoseidon, verifyPoseidon } from '#lib/attest/eddsa.ts';
import { attestationHash, fieldOf, scopeSignal } from '#lib/attest/fields.ts';
import { BN254_R } from '#lib/zk/bn254.ts';

/** EdDSA-Poseidon on Baby JubJub (lib/attest/eddsa.ts), circomlibjs's own eddsa as the reference, and the signed attestation hash. */
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

  it('a fixed key and message give circomlibjs 0.1.7’s public key and signature', async () => {
    const prv = Buffer.from('0001020304050607080900010203040506070809000102030405060708090001', 'hex');
    expect(await publicKeyOf(prv)).toEqual({
      x: '13277427435165878497778222415993513565335242147425444199013288855685581939618',
      y: '13622229784656158136036771217484571176836296686641868549125388198837476602820',
    });
    expect(await signPoseidon(prv, 0x090807060504030201000n)).toEqual({
      R8: {
        x: '13342041972831944376100599072813856881369779894877711919474553924692937434998',
        y: '14247782232968724181464114053583084499834596205742351317105835404344644064233',
      },
      S: '694207266388138172932884162232928307137722981099088974314815518255355527811',
    });
  });

  it('matches circomlibjs’s eddsa on random keys and messages (keys, signatures, and each side verifying the other’s)', async () => {
    const e = await buildEddsa();
    const F = e.babyJub.F;
    const str = (v: Uint8Array) => F.toObject(v).toString();
    const messages = [0n, 1n, BN254_R - 1n];
    for (let i = 0; i < 12; i++) {
      const prv = randomBytes(32);
      const msg = messages[i] ?? BigInt(`0x${randomBytes(32).toString('hex')}`) % BN254_R;
      const pub = e.prv2pub(prv);
      expect(await publicKeyOf(prv)).toEqual({ x: str(pub[0]), y: str(pub[1]) });
      const ref = e.signPoseidon(prv, F.e(msg));
      const ours = await signPoseidon(prv, msg);
      expect(ours).toEqual({ R8: { x: str(ref.R8[0]), y: str(ref.R8[1]) }, S: ref.S.toString() });
      expect(await verifyPoseidon(msg, ours, { x: str(pub[0]), y: str(pub[1]) })).toBe(true);
      const theirs = { R8: [F.e(BigInt(ours.R8.x)), F.e(BigInt(ours.R8.y))] as typeof pub, S: BigInt(ours.S) };
      expect(e.verifyPoseidon(F.e(msg), theirs, pub)).toBe(true);
    }
  }, 120_000);

  it('signs and verifies the attestation hash; any changed field, signature part or key is refused', async () => {
    const pub = await publicKeyOf(key);
    const msg = await attestationHash(fields);
    expect(msg < BN254_R).toBe(true);
    const sig = await signPoseidon(key, msg);
    expect(await verifyPoseidon(msg, sig, pub)).toBe(true);

    expect(await verifyPoseidon(await attestationHash({ ...fields, claimFields: [123n, 17n, 150n] }), sig, pub)).toBe(false);
    expect(await verifyPoseidon(await attestationHash({ ...fields, expiresAtSeconds: fields.expiresAtSeconds + 1 }), sig, pub)).toBe(false);
    expect(await verifyPoseidon(msg, { ...sig, S: (BigInt(sig.S) + 1n).toString() }, pub)).toBe(false);
    expect(await verifyPoseidon(msg, { ...sig, R8: { x: sig.R8.y, y: sig.R8.x } }, pub)).toBe(false);
    expect(await verifyPoseidon(msg, sig, await publicKeyOf(randomBytes(32)))).toBe(false);
    // Out-of-range coordinates are refused, not reduced.
    expect(await verifyPoseidon(msg, { ...sig, R8: { x: (BigInt(sig.R8.x) + BN254_R).toString(), y: sig.R8.y } }, pub)).toBe(false);
    // S + l names the same point but is not canonical; malformed values answer false, never throw.
    expect(await verifyPoseidon(msg, { ...sig, S: (BigInt(sig.S) + BN254_R / 8n).toString() }, pub)).toBe(false);
    expect(await verifyPoseidon(msg, { ...sig, S: '-1' }, pub)).toBe(false);
    expect(await verifyPoseidon(msg, { ...sig, S: 'nope' }, pub)).toBe(false);
  }, 60_000);

  it('field encodings stay below 2^248 and the scope signal binds the schema', () => {
    expect(fieldOf('x') < 2n ** 248n).toBe(true);
    expect(scopeSignal('age-over-18', 'vote')).not.toBe(scopeSignal('range', 'vote'));
    expect(scopeSignal('age-over-18', 'vote')).not.toBe(scopeSignal('age-over-18', 'vote2'));
  });
});
