import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCanonicalDecimal, isCanonicalTime, isCanonicalUuid, nonCanonicalReasons } from '#lib/attest/canonical.ts';
import { BN254_R as r } from '#lib/zk/bn254.ts';

// The one written form of each attestation value (lib/attest/canonical.ts): what the issuer writes
// is canonical, and every other spelling of the same value is not.
describe('canonical forms', () => {
  it('decimals: toString of a value below r, nothing else', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: r - 1n }), fc.integer({ min: 1, max: 3 }), (v, zeros) => {
        expect(isCanonicalDecimal(v.toString())).toBe(true);
        expect(isCanonicalDecimal('0'.repeat(zeros) + v.toString())).toBe(false);
        expect(isCanonicalDecimal((v + r).toString())).toBe(false);
        expect(isCanonicalDecimal(`+${v}`)).toBe(false);
        expect(isCanonicalDecimal(`0x${v.toString(16)}`)).toBe(false);
      }),
    );
    for (const bad of ['', ' 1', '1 ', '-1', '1.0', '1e3', '٣', r.toString()]) expect(isCanonicalDecimal(bad), bad).toBe(false);
    expect(isCanonicalDecimal('0')).toBe(true);
  });

  it('uuids: lowercase 8-4-4-4-12 only', () => {
    fc.assert(
      fc.property(fc.uuid(), (u) => {
        const lower = u.toLowerCase();
        expect(isCanonicalUuid(lower)).toBe(true);
        const hex = lower.replace(/-/g, '');
        expect(isCanonicalUuid(`${hex.slice(0, 4)}-${hex.slice(4, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`)).toBe(false);
        expect(isCanonicalUuid(hex)).toBe(false);
        if (/[a-f]/.test(lower)) expect(isCanonicalUuid(lower.toUpperCase())).toBe(false);
      }),
    );
    expect(isCanonicalUuid('-'.repeat(36))).toBe(false);
  });

  it('times: whole seconds written .000Z, as toISOString writes them', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799 }), fc.integer({ min: 1, max: 999 }), (s, ms) => {
        const t = new Date(s * 1000).toISOString();
        expect(isCanonicalTime(t)).toBe(true);
        expect(isCanonicalTime(new Date(s * 1000 + ms).toISOString())).toBe(false);
        expect(isCanonicalTime(t.replace('.000Z', 'Z'))).toBe(false);
        expect(isCanonicalTime(t.replace('.000Z', '.000+00:00'))).toBe(false);
      }),
    );
    for (const bad of [
      '1969-12-31T23:59:59.000Z',
      '0000-01-01T00:00:00.000Z',
      '2026-02-30T00:00:00.000Z',
      '2026-13-01T00:00:00.000Z',
      '2026-01-01T24:00:00.000Z',
      '2026-01-01 00:00:00.000Z',
    ])
      expect(isCanonicalTime(bad), bad).toBe(false);
  });

  it('names every value that is not canonical', () => {
    const a = {
      id: 'AAAAAAAA-0000-4000-8000-000000000000',
      claims: { group: '-'.repeat(36), commitment: '01' },
      nullifier: '007',
      issuedAt: '2026-01-01T00:00:00.5Z',
      expiresAt: '2027-01-01T00:00:00.000Z',
      issuer: { algorithm: 'eddsa-poseidon-babyjubjub', publicKey: { x: '1', y: '2' } },
      signature: { R8: { x: '3', y: '4' }, S: '5' },
      hash: '6',
    };
    expect(nonCanonicalReasons(a).map((x) => x.split(' ')[0])).toEqual(['id', 'claims.group', 'claims.commitment', 'nullifier', 'issuedAt']);
  });
});
