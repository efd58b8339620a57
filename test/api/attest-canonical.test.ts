import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { signPoseidon } from '#lib/attest/eddsa.ts';
import { revocationMessage, scopeSignal } from '#lib/attest/fields.ts';
import { merklePath, poseidonHash2 } from '#lib/zk/merkle.ts';
import { generateProof, terminateCurves } from '#lib/zk/groth16.ts';
import { poseidon } from '#lib/zk/poseidon.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedIn } from '../support/storage.ts';
import { BN254_R } from '#lib/zk/bn254.ts';

/**
 * Every signed or verified value of an attestation has one written form (lib/attest/canonical.ts):
 * a valid attestation re-encoded in any other way — the same numbers, times and uuids written
 * differently — verifies false with a reason, and nothing answers 500. Real attestations of three
 * schemas (decimal claims, a preimage hash, a group id) are issued from real Groth16 proofs.
 */
type Json = Record<string, unknown>;
let rt: TestRuntime;
let alice: HttpClient & { userId: string };
let anonymous: HttpClient;
let age: Json;
let preimage: Json;
let member: Json;

const rand = () => BigInt(`0x${randomBytes(30).toString('hex')}`);
const r = BN254_R;
const verify = (attestation: unknown) => anonymous.post('/api/attest/verify', { attestation });

/** A deep copy with the value at `path` (dot-separated) replaced. */
function withField(a: Json, path: string, value: unknown): Json {
  const copy = structuredClone(a);
  const keys = path.split('.');
  let o = copy as Record<string, unknown>;
  for (const k of keys.slice(0, -1)) o = o[k] as Record<string, unknown>;
  o[keys.at(-1)!] = value;
  return copy;
}
function fieldAt(a: Json, path: string): string {
  return path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], a) as string;
}

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '50' });
  alice = await signedIn(rt);
  anonymous = rt.client();

  const ageProof = await generateProof('range_scoped', {
    value: '30',
    blinding: rand().toString(),
    min: '18',
    max: '150',
    scope: scopeSignal('age-over-18', 'canon').toString(),
  });
  age = (await alice.post('/api/attest', { schema: 'age-over-18', scope: 'canon', proof: ageProof.proof, publicSignals: ageProof.publicSignals })).json
    .attestation;

  const pre = await generateProof('preimage_scoped', { secret: rand().toString(), scope: scopeSignal('preimage', 'canon').toString() });
  preimage = (await alice.post('/api/attest', { schema: 'preimage', scope: 'canon', proof: pre.proof, publicSignals: pre.publicSignals })).json.attestation;

  const group = (await alice.post('/api/attest/groups', { name: 'canon' })).json.group;
  const secret = rand();
  const commitment = await poseidon([secret]);
  await alice.post(`/api/attest/groups/${group.id}/members`, { commitment: commitment.toString() });
  const path = merklePath(await poseidonHash2(), [commitment], 0);
  const mp = await generateProof('membership_scoped', {
    secret: secret.toString(),
    pathElements: path.pathElements.map(String),
    pathIndices: path.pathIndices.map(String),
    scope: scopeSignal('group-member', 'canon').toString(),
  });
  member = (await alice.post('/api/attest', { schema: 'group-member', group: group.id, scope: 'canon', proof: mp.proof, publicSignals: mp.publicSignals })).json
    .attestation;
}, 300_000);
afterAll(async () => {
  await rt?.stop();
  await terminateCurves();
});
beforeEach(() => advanceClock(61_000)); // a fresh rate-limit window per test

describe('POST /api/attest/verify: one canonical form per value', () => {
  it('the attestations as issued verify', async () => {
    for (const a of [age, preimage, member]) {
      expect(a, 'issued').toBeDefined();
      expect((await verify(a)).json).toEqual({ success: true, valid: true, revoked: false, expired: false, reasons: [] });
    }
  });

  /** The attestation with one value rewritten must verify false, naming that value. */
  async function refused(a: Json, path: string, value: unknown, reason: string | RegExp = path) {
    const res = await verify(withField(a, path, value));
    expect(res.status, `${path} = ${JSON.stringify(value)}: ${JSON.stringify(res.json)}`).toBe(200);
    expect(res.json.valid, `${path} = ${JSON.stringify(value)}`).toBe(false);
    expect(res.json.reasons.join('; ')).toMatch(reason);
  }

  it('a nullifier written "0" + N, "00" + N or N + r', async () => {
    const n = fieldAt(age, 'nullifier');
    await refused(age, 'nullifier', `0${n}`, 'nullifier is not a canonical decimal');
    await refused(age, 'nullifier', `00${n}`, 'nullifier is not a canonical decimal');
    await refused(age, 'nullifier', (BigInt(n) + r).toString(), 'nullifier is not a canonical decimal');
  });

  it('a claim (the preimage hash, a commitment, a bound) with a leading zero', async () => {
    await refused(preimage, 'claims.hash', `0${fieldAt(preimage, 'claims.hash')}`, 'claims.hash is not a canonical decimal');
    await refused(age, 'claims.commitment', `0${fieldAt(age, 'claims.commitment')}`, 'claims.commitment');
    await refused(age, 'claims.min', '018', 'claims.min');
  });

  it('issuedAt and expiresAt with other milliseconds, without them, with an offset, or before 1970', async () => {
    for (const field of ['issuedAt', 'expiresAt']) {
      const t = fieldAt(age, field);
      expect(t).toMatch(/\.000Z$/);
      await refused(age, field, t.replace('.000Z', '.999Z'), `${field} is not a canonical time`);
      await refused(age, field, t.replace('.000Z', '.001Z'), `${field} is not a canonical time`);
      await refused(age, field, t.replace('.000Z', 'Z'), `${field} is not a canonical time`);
      await refused(age, field, t.replace('.000Z', '.000+00:00'), `${field} is not a canonical time`);
      await refused(age, field, '0000-01-01T00:00:00.000Z', `${field} is not a canonical time`);
    }
  });

  it('a group uuid with moved dashes, without dashes or in capitals; 36 dashes answer 200, not 500', async () => {
    const g = fieldAt(member, 'claims.group');
    const hex = g.replace(/-/g, '');
    const moved = `${hex.slice(0, 4)}-${hex.slice(4, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    expect(moved).toHaveLength(36);
    await refused(member, 'claims.group', moved, 'claims.group is not a canonical uuid');
    await refused(member, 'claims.group', `${hex}----`, 'claims.group');
    await refused(member, 'claims.group', g.toUpperCase(), 'claims.group');
    await refused(member, 'claims.group', '-'.repeat(36), 'claims.group');
    await refused(member, 'claims.group', 'not-a-uuid', 'claims.group');
  });

  it('the id, the signature, the issuer and the hash in other forms; an anchor the attestation never had', async () => {
    await refused(age, 'id', fieldAt(age, 'id').toUpperCase(), 'id is not a canonical uuid');
    await refused(age, 'signature.S', `0${fieldAt(age, 'signature.S')}`, 'signature.S');
    await refused(age, 'signature.R8.x', `0${fieldAt(age, 'signature.R8.x')}`, 'signature.R8.x');
    await refused(age, 'signature.R8.y', (BigInt(fieldAt(age, 'signature.R8.y')) + r).toString(), 'signature.R8.y');
    await refused(age, 'issuer.publicKey.x', `0${fieldAt(age, 'issuer.publicKey.x')}`, 'issuer.publicKey.x');
    await refused(age, 'issuer.keyId', fieldAt(age, 'issuer.keyId').toUpperCase(), 'issuer.keyId');
    await refused(age, 'issuer.algorithm', 'EdDSA', 'issuer.algorithm');
    await refused(age, 'hash', `0${fieldAt(age, 'hash')}`, 'hash');
    await refused(age, 'anchor', { txHash: `0x${'1'.repeat(64)}`, contractAddress: `0x${'2'.repeat(64)}` }, 'anchor');
  });

  it('a request that is not an attestation at all is still 400 {error, message}', async () => {
    const res = await verify({ id: 'x' });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: expect.any(String), message: expect.any(String) });
  });

  it('property: any re-encoding that is not byte-identical in a canonical field verifies false, and nothing answers 500', async () => {
    const bases = [age, preimage, member];
    const decimal = (v: string) =>
      fc.oneof(
        fc.integer({ min: 1, max: 3 }).map((k) => '0'.repeat(k) + v),
        fc.integer({ min: 1, max: 2 }).map((k) => (BigInt(v) + BigInt(k) * r).toString()),
        fc.constantFrom(`+${v}`, ` ${v}`, `${v} `, `0x${BigInt(v).toString(16)}`, `-${v}`, `${v}.0`),
        // another value, canonically written: the hash or the signature no longer holds
        fc.bigInt({ min: 0n, max: r - 1n }).map(String),
      );
    const uuid = (v: string) => {
      const hex = v.replace(/-/g, '');
      return fc.oneof(
        fc.constantFrom(v.toUpperCase(), hex, `{${v}}`, `${v} `),
        // the 32 hex digits with 4 dashes at other positions
        fc.uniqueArray(fc.integer({ min: 1, max: 31 }), { minLength: 4, maxLength: 4 }).map((cuts) => {
          const at = [...cuts].sort((x, y) => x - y);
          let s = '';
          for (let i = 0; i < 32; i++) s += (at.includes(i) ? '-' : '') + hex[i];
          return s;
        }),
        fc.constant('-'.repeat(36)),
        fc.uuid().map((u) => u.toLowerCase()),
      );
    };
    const time = (v: string) =>
      fc.oneof(
        fc.integer({ min: 1, max: 999 }).map((ms) => v.replace('.000Z', `.${String(ms).padStart(3, '0')}Z`)),
        fc.constantFrom(
          v.replace('.000Z', 'Z'),
          v.replace('.000Z', '.0Z'),
          v.replace('.000Z', '.000000Z'),
          v.replace('.000Z', '.000+00:00'),
          v.replace('Z', 'z'),
          v.replace('T', ' '),
        ),
        // another time, canonically written (before 1970 included)
        fc.integer({ min: -62_167_219_200, max: 253_402_300_799 }).map((s) => new Date(s * 1000).toISOString()),
      );
    const fields: [string, (v: string) => fc.Arbitrary<string>][] = [
      ['id', uuid],
      ['nullifier', decimal],
      ['hash', decimal],
      ['issuedAt', time],
      ['expiresAt', time],
      ['signature.S', decimal],
      ['signature.R8.x', decimal],
      ['signature.R8.y', decimal],
      ['issuer.publicKey.x', decimal],
      ['issuer.publicKey.y', decimal],
    ];
    const mutation = fc
      .constantFrom(...bases.keys())
      .chain((b) => {
        const a = bases[b]!;
        const claimFields = Object.keys(a.claims as Json).map((name): [string, (v: string) => fc.Arbitrary<string>] => [
          `claims.${name}`,
          name === 'group' ? uuid : decimal,
        ]);
        const all = [
          ...fields,
          ...claimFields,
          ['scope', () => fc.string({ maxLength: 40 })] as [string, (v: string) => fc.Arbitrary<string>],
          ['issuer.keyId', () => fc.string({ maxLength: 40 })] as [string, (v: string) => fc.Arbitrary<string>],
        ];
        return fc.constantFrom(...all).chain(([path, gen]) =>
          // a re-encoding of the value, or any other string in its place
          fc.oneof(gen(fieldAt(a, path)), fc.string({ maxLength: 90 })).map((value) => ({ a, path, value })),
        );
      })
      .filter(({ a, path, value }) => value !== fieldAt(a, path));
    await fc.assert(
      fc.asyncProperty(mutation, async ({ a, path, value }) => {
        const res = await verify(withField(a, path, value));
        expect(res.status, `${path} = ${JSON.stringify(value)}: ${JSON.stringify(res.json)}`).toBe(200);
        expect(res.json.valid, `${path} = ${JSON.stringify(value)}`).toBe(false);
        expect(res.json.reasons.length).toBeGreaterThan(0);
      }),
      { numRuns: 150 },
    );
  }, 300_000);
});

describe('POST /api/attest: values the issuer signs are taken only in their canonical form (400, never 500)', () => {
  it('a group id in capitals is 400 {error, message}; a public signal with a leading zero is 400', async () => {
    const group = fieldAt(member, 'claims.group');
    const res = await alice.post('/api/attest', {
      schema: 'group-member',
      group: group.toUpperCase(),
      scope: 'canon-2',
      proof: {
        pi_a: ['1', '2', '1'],
        pi_b: [
          ['1', '2'],
          ['3', '4'],
          ['1', '0'],
        ],
        pi_c: ['1', '2', '1'],
        protocol: 'groth16',
        curve: 'bn128',
      },
      publicSignals: ['1', '2', '3'],
    });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: 'INVALID_INPUT', message: expect.stringContaining('group') });

    const p = await generateProof('preimage_scoped', { secret: rand().toString(), scope: scopeSignal('preimage', 'canon-2').toString() });
    const padded = await alice.post('/api/attest', {
      schema: 'preimage',
      scope: 'canon-2',
      proof: p.proof,
      publicSignals: [`0${p.publicSignals[0]}`, ...p.publicSignals.slice(1)],
    });
    expect(padded.status).toBe(400);
    expect(padded.json).toEqual({ error: expect.any(String), message: expect.stringContaining('canonical') });
  });
});

// Last: it revokes the preimage attestation.
describe("POST /api/attest/:id/revoke: the issuer's signature is taken in its canonical form only", () => {
  it('a revocation signature with a leading zero is 400 and revokes nothing; the canonical one revokes', async () => {
    const id = fieldAt(preimage, 'id');
    const key = Buffer.from(readFileSync(join(rt.dataDir, 'keys', 'attest-issuer.key'), 'utf8').trim(), 'base64');
    const sig = await signPoseidon(key, await revocationMessage(id));
    for (const bad of [
      { ...sig, S: `0${sig.S}` },
      { ...sig, R8: { ...sig.R8, x: `0${sig.R8.x}` } },
    ]) {
      const res = await anonymous.post(`/api/attest/${id}/revoke`, { issuerSignature: bad });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: 'INVALID_INPUT', message: expect.stringContaining('canonical decimal') });
    }
    expect((await verify(preimage)).json.valid).toBe(true);
    expect((await anonymous.post(`/api/attest/${id}/revoke`, { issuerSignature: sig })).status).toBe(200);
    expect((await verify(preimage)).json).toMatchObject({ valid: false, revoked: true });
  });
});
