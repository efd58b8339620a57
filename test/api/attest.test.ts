import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { signPoseidon } from '#lib/attest/eddsa.ts';
import { revocationMessage, scopeSignal } from '#lib/attest/fields.ts';
import { merklePath, poseidonHash2 } from '#lib/zk/merkle.ts';
import { artifactPath } from '#lib/zk/circuits.ts';
import { generateProof, terminateCurves } from '#lib/zk/groth16.ts';
import { poseidon } from '#lib/zk/poseidon.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedIn } from '../support/storage.ts';

/**
 * /api/attest over HTTP against the local runtime, with real Groth16 proofs of the scoped
 * circuits made here as a client would, and the issuer's EdDSA signatures.
 */
let rt: TestRuntime;
let alice: HttpClient & { userId: string };
let bob: HttpClient & { userId: string };
let anonymous: HttpClient;

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20' });
  alice = await signedIn(rt);
  bob = await signedIn(rt);
  anonymous = rt.client();
});
afterAll(async () => {
  await rt?.stop();
  await terminateCurves();
});
beforeEach(() => advanceClock(61_000)); // a fresh rate-limit window per test

const rand = () => BigInt(`0x${randomBytes(30).toString('hex')}`);

/** An age proof as the client makes it: the age and blinding never leave this function. */
async function ageProof(age: number, opts: { min?: string; max?: string; scope?: string; blinding?: bigint; schema?: string } = {}) {
  const blinding = opts.blinding ?? rand();
  const out = await generateProof('range_scoped', {
    value: String(age),
    blinding: blinding.toString(),
    min: opts.min ?? '18',
    max: opts.max ?? '150',
    scope: scopeSignal(opts.schema ?? 'age-over-18', opts.scope ?? 'default').toString(),
  });
  return { ...out, blinding };
}

const attest = (c: HttpClient, body: Record<string, unknown>) => c.post('/api/attest', body);

describe('schemas and issuer (public)', () => {
  it('lists each schema with its circuit, the pinned verification key hash and who fixes each signal', async () => {
    const res = await anonymous.get('/api/attest/schemas');
    expect(res.status).toBe(200);
    const byId = Object.fromEntries(res.json.schemas.map((s: { id: string }) => [s.id, s]));
    expect(Object.keys(byId).sort()).toEqual(['age-over-18', 'group-member', 'preimage', 'range']);
    const age = byId['age-over-18'];
    expect(age.circuit).toBe('range_scoped');
    expect(age.vkHash).toBe(
      createHash('sha256')
        .update(readFileSync(artifactPath('range_scoped', 'vkey')))
        .digest('hex'),
    );
    expect(age.publicSignals).toEqual([
      { index: 0, name: 'commitment', source: 'subject' },
      { index: 1, name: 'nullifier', source: 'nullifier' },
      { index: 2, name: 'min', source: 'schema', value: '18' },
      { index: 3, name: 'max', source: 'schema', value: '150' },
      { index: 4, name: 'scope', source: 'scope' },
    ]);
    expect(byId['group-member']).toMatchObject({ circuit: 'membership_scoped', needsGroup: true });
    expect(byId.preimage.circuit).toBe('preimage_scoped');
  });

  it('publishes the issuer public key, the same on every call, and nothing secret', async () => {
    const a = await anonymous.get('/api/attest/issuer');
    const b = await anonymous.get('/api/attest/issuer');
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({
      success: true,
      algorithm: 'eddsa-poseidon-babyjubjub',
      publicKey: { x: expect.stringMatching(/^[0-9]+$/), y: expect.stringMatching(/^[0-9]+$/) },
    });
    expect(b.json.publicKey).toEqual(a.json.publicKey);
    const key = readFileSync(join(rt.dataDir, 'keys', 'attest-issuer.key'), 'utf8').trim();
    expect(JSON.stringify(a.json)).not.toContain(key);
    expect(JSON.stringify(a.json)).not.toMatch(/private|secret/i);
  });
});

describe('POST /api/attest: age ≥ 18 from a real range proof', () => {
  it('issues a signed attestation that verifies; the age is nowhere in it', async () => {
    const p = await ageProof(27, { scope: 'vote-2026' });
    const res = await attest(alice, { schema: 'age-over-18', proof: p.proof, publicSignals: p.publicSignals, scope: 'vote-2026' });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const a = res.json.attestation;
    expect(a).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      schema: 'age-over-18',
      claims: { commitment: p.publicSignals[0], min: '18', max: '150' },
      nullifier: p.publicSignals[1],
      scope: 'vote-2026',
      issuer: { algorithm: 'eddsa-poseidon-babyjubjub', publicKey: (await anonymous.get('/api/attest/issuer')).json.publicKey },
      signature: { R8: { x: expect.any(String), y: expect.any(String) }, S: expect.any(String) },
    });
    expect(Date.parse(a.expiresAt) - Date.parse(a.issuedAt)).toBe(365 * 86_400_000);
    expect(JSON.stringify(res.json)).not.toContain(p.blinding.toString());

    const v = await anonymous.post('/api/attest/verify', { attestation: a });
    expect(v.json).toEqual({ success: true, valid: true, revoked: false, expired: false, reasons: [] });

    const mine = await alice.get(`/api/attest/${a.id}`);
    expect(mine.json.attestation).toEqual({ ...a, revoked: false });
    expect((await bob.get(`/api/attest/${a.id}`)).status).toBe(404);
    expect((await anonymous.get(`/api/attest/${a.id}`)).status).toBe(401);
  });

  it('the same proof made with bound 17 is refused (400 SCHEMA_MISMATCH), as is another scope; a false proof is 401 INVALID_PROOF', async () => {
    const p17 = await ageProof(17, { min: '17' });
    const r17 = await attest(alice, { schema: 'age-over-18', proof: p17.proof, publicSignals: p17.publicSignals });
    expect(r17.status).toBe(400);
    expect(r17.json).toEqual({ error: 'SCHEMA_MISMATCH', message: expect.stringContaining('min must be 18') });

    const p = await ageProof(30);
    const otherScope = await attest(alice, { schema: 'age-over-18', proof: p.proof, publicSignals: p.publicSignals, scope: 'elsewhere' });
    expect(otherScope.json.error).toBe('SCHEMA_MISMATCH');
    // Signals edited to the schema's bound after proving: the proof no longer verifies.
    const forged = await attest(alice, {
      schema: 'age-over-18',
      proof: p17.proof,
      publicSignals: [...p17.publicSignals.slice(0, 2), '18', ...p17.publicSignals.slice(3)],
    });
    expect(forged.status).toBe(401);
    expect(forged.json.error).toBe('INVALID_PROOF');
    // Another circuit's proof under this schema: the signal count does not match.
    const pre = await generateProof('preimage_scoped', { secret: '5', scope: scopeSignal('preimage', 'default').toString() });
    expect((await attest(alice, { schema: 'age-over-18', proof: pre.proof, publicSignals: pre.publicSignals })).json.error).toBe('SCHEMA_MISMATCH');
    expect((await attest(alice, { schema: 'nope', proof: p.proof, publicSignals: p.publicSignals })).status).toBe(400);
    expect((await attest(anonymous, { schema: 'age-over-18', proof: p.proof, publicSignals: p.publicSignals })).status).toBe(401);
  });

  it('a second attestation of the same subject in the same scope: exactly one of concurrent requests wins, the others 409 ALREADY_ATTESTED', async () => {
    const p = await ageProof(40, { scope: 'concurrency' });
    const body = { schema: 'age-over-18', proof: p.proof, publicSignals: p.publicSignals, scope: 'concurrency' };
    const answers = await Promise.all([attest(alice, body), attest(alice, body), attest(bob, body), attest(alice, body)]);
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409]);
    for (const r of answers.filter((x) => x.status === 409)) expect(r.json).toEqual({ error: 'ALREADY_ATTESTED', message: expect.any(String) });
    // The same blinding (the subject's secret) with another age: the same nullifier, refused.
    const again = await ageProof(41, { scope: 'concurrency', blinding: p.blinding });
    expect(again.publicSignals[1]).toBe(p.publicSignals[1]);
    expect((await attest(alice, { ...body, proof: again.proof, publicSignals: again.publicSignals })).status).toBe(409);
    // Another scope gives another nullifier: accepted.
    const other = await ageProof(40, { scope: 'concurrency-2', blinding: p.blinding });
    expect((await attest(alice, { ...body, scope: 'concurrency-2', proof: other.proof, publicSignals: other.publicSignals })).status).toBe(201);
  });

  it("a range claim with the subject's bounds, and a preimage claim", async () => {
    const r = await ageProof(5000, { min: '1000', max: '9999', schema: 'range' });
    const res = await attest(alice, { schema: 'range', proof: r.proof, publicSignals: r.publicSignals });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.attestation.claims).toEqual({ commitment: r.publicSignals[0], min: '1000', max: '9999' });

    const secret = rand();
    const pre = await generateProof('preimage_scoped', { secret: secret.toString(), scope: scopeSignal('preimage', 'default').toString() });
    const pr = await attest(alice, { schema: 'preimage', proof: pre.proof, publicSignals: pre.publicSignals });
    expect(pr.status).toBe(201);
    expect(pr.json.attestation.claims).toEqual({ hash: (await poseidon([secret])).toString() });
    expect(JSON.stringify(pr.json)).not.toContain(secret.toString());
  });

  it("anchor: true stores the attestation hash in chain B's proof registry and returns its txHash", async () => {
    const p = await ageProof(33, { scope: 'anchored' });
    const res = await attest(alice, { schema: 'age-over-18', proof: p.proof, publicSignals: p.publicSignals, scope: 'anchored', anchor: true });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.anchor).toEqual({ txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), contractAddress: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(res.json.attestation.anchor).toEqual(res.json.anchor);
    const { proofRegistry } = await import('#lib/chains/chain-b/index.ts');
    const { uuidToFelt, toHex64 } = await import('#lib/chains/chain-b/felts.ts');
    const { anchorHash } = await import('#lib/attest/anchor.ts');
    const stored = await proofRegistry().getProof(uuidToFelt(res.json.attestation.id));
    expect(stored?.proof_hash).toBe(toHex64(anchorHash(BigInt(res.json.attestation.hash))));
  });
});

describe('groups and membership attestations', () => {
  it('owner creates a group and adds commitments; the root history lets a proof against a recent root verify', async () => {
    const created = await alice.post('/api/attest/groups', { name: 'members' });
    expect(created.status).toBe(201);
    const group = created.json.group;
    expect(group).toMatchObject({ name: 'members', size: 0, depth: 20 });

    const secrets = [rand(), rand(), rand()];
    const commitments = await Promise.all(secrets.map((s) => poseidon([s])));
    for (const [i, c] of commitments.entries()) {
      const add = await alice.post(`/api/attest/groups/${group.id}/members`, { commitment: c.toString() });
      expect(add.status).toBe(201);
      expect(add.json).toMatchObject({ index: i, size: i + 1 });
    }
    expect((await alice.post(`/api/attest/groups/${group.id}/members`, { commitment: commitments[0]!.toString() })).status).toBe(409);
    expect((await bob.post(`/api/attest/groups/${group.id}/members`, { commitment: '123' })).status).toBe(404);
    expect((await alice.post(`/api/attest/groups/${group.id}/members`, { commitment: '0' })).status).toBe(400);

    const g = await anonymous.get(`/api/attest/groups/${group.id}`);
    expect(g.json).toMatchObject({ success: true, id: group.id, size: 3, depth: 20, root: expect.any(String) });
    const members = (await anonymous.get(`/api/attest/groups/${group.id}/members`)).json.commitments.map(BigInt);
    expect(members).toEqual(commitments);

    // Bob's member (index 1) proves with the path computed from the public commitments.
    const path = merklePath(await poseidonHash2(), members, 1);
    expect(path.root.toString()).toBe(g.json.root);
    const prove = async (scope: string) =>
      generateProof('membership_scoped', {
        secret: secrets[1]!.toString(),
        pathElements: path.pathElements.map(String),
        pathIndices: path.pathIndices.map(String),
        scope: scopeSignal('group-member', scope).toString(),
      });
    const proof = await prove('poll-1');
    const res = await attest(bob, { schema: 'group-member', group: group.id, scope: 'poll-1', proof: proof.proof, publicSignals: proof.publicSignals });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.attestation.claims).toEqual({ group: group.id, root: g.json.root });
    expect(JSON.stringify(res.json)).not.toContain(secrets[1]!.toString());

    // A new member moves the root; a proof against the previous root is still accepted.
    await alice.post(`/api/attest/groups/${group.id}/members`, { commitment: (await poseidon([rand()])).toString() });
    expect((await anonymous.get(`/api/attest/groups/${group.id}`)).json.recentRoots).toContain(g.json.root);
    const late = await prove('poll-2');
    expect((await attest(bob, { schema: 'group-member', group: group.id, scope: 'poll-2', proof: late.proof, publicSignals: late.publicSignals })).status).toBe(
      201,
    );

    // Another group's id with this root: not one of its roots.
    const other = (await alice.post('/api/attest/groups', { name: 'other' })).json.group;
    const wrong = await prove('poll-3');
    const mismatch = await attest(bob, { schema: 'group-member', group: other.id, scope: 'poll-3', proof: wrong.proof, publicSignals: wrong.publicSignals });
    expect(mismatch.json.error).toBe('SCHEMA_MISMATCH');
    expect((await anonymous.get(`/api/attest/groups/${crypto.randomUUID()}`)).status).toBe(404);
  });
});

describe('listing, revocation, tampering and expiry', () => {
  let issued: Record<string, unknown>[] = [];
  let lister: HttpClient & { userId: string };

  beforeAll(async () => {
    lister = await signedIn(rt);
    issued = [];
    for (const scope of ['l1', 'l2', 'l3']) {
      const p = await ageProof(50, { scope });
      const r = await attest(lister, { schema: 'age-over-18', proof: p.proof, publicSignals: p.publicSignals, scope });
      issued.push(r.json.attestation);
      advanceClock(1_000);
    }
  }, 300_000);

  it("GET /api/attest pages through the caller's attestations, newest first", async () => {
    const first = await lister.get('/api/attest?limit=2');
    expect(first.json.attestations.map((a: { id: string }) => a.id)).toEqual([issued[2]!.id, issued[1]!.id]);
    expect(first.json.nextCursor).toEqual(expect.any(String));
    const second = await lister.get(`/api/attest?limit=2&cursor=${encodeURIComponent(first.json.nextCursor)}`);
    expect(second.json.attestations.map((a: { id: string }) => a.id)).toEqual([issued[0]!.id]);
    expect(second.json.nextCursor).toBeNull();
    expect((await bob.get(`/api/attest?cursor=${encodeURIComponent(first.json.nextCursor)}`)).status).toBe(400);
    expect((await lister.get('/api/attest?cursor=garbage')).status).toBe(400);
  });

  it('a tampered signature, claim or issuer key is refused by verify', async () => {
    const a = issued[0]! as { signature: { S: string; R8: { x: string; y: string } }; claims: Record<string, string>; issuer: { publicKey: { x: string } } };
    const badSig = await anonymous.post('/api/attest/verify', {
      attestation: { ...a, signature: { ...a.signature, S: (BigInt(a.signature.S) + 1n).toString() } },
    });
    expect(badSig.json).toMatchObject({ valid: false, reasons: ['signature does not verify'] });
    const badClaim = await anonymous.post('/api/attest/verify', { attestation: { ...a, claims: { ...a.claims, min: '17' } } });
    expect(badClaim.json.valid).toBe(false);
    expect(badClaim.json.reasons).toContain('hash does not match the fields');
    const badKey = await anonymous.post('/api/attest/verify', { attestation: { ...a, issuer: { ...a.issuer, publicKey: { x: '1', y: '2' } } } });
    expect(badKey.json.reasons).toContain('not signed by this issuer');
    expect((await anonymous.post('/api/attest/verify', { attestation: { id: 'x' } })).status).toBe(400);
  });

  it('revoke by the subject: verify then says revoked; the revocation list and its root change; others get 404', async () => {
    const a = issued[1]! as { id: string; hash: string };
    const before = (await anonymous.get('/api/attest/revocations')).json;
    expect((await bob.post(`/api/attest/${a.id}/revoke`, {})).status).toBe(404);
    expect((await anonymous.post(`/api/attest/${a.id}/revoke`, {})).status).toBe(404);
    const r = await lister.post(`/api/attest/${a.id}/revoke`, {});
    expect(r.json).toEqual({ success: true, id: a.id, revoked: true, revokedAt: expect.any(String) });
    expect((await lister.post(`/api/attest/${a.id}/revoke`, {})).json.revokedAt).toBe(r.json.revokedAt);
    const v = await anonymous.post('/api/attest/verify', { attestation: issued[1] });
    expect(v.json).toEqual({ success: true, valid: false, revoked: true, expired: false, reasons: ['revoked'] });
    const after = (await anonymous.get('/api/attest/revocations')).json;
    expect(after.size).toBe(before.size + 1);
    expect(after.root).not.toBe(before.root);
    expect(after.revoked.at(-1)).toEqual({ id: a.id, hash: a.hash, revokedAt: r.json.revokedAt });
  });

  it('revoke by the issuer: a signature of the revocation message by the issuer key, no session needed', async () => {
    const a = issued[2]! as { id: string };
    const key = Buffer.from(readFileSync(join(rt.dataDir, 'keys', 'attest-issuer.key'), 'utf8').trim(), 'base64');
    const wrongKey = await signPoseidon(randomBytes(32), await revocationMessage(a.id));
    expect((await anonymous.post(`/api/attest/${a.id}/revoke`, { issuerSignature: wrongKey })).status).toBe(404);
    const sig = await signPoseidon(key, await revocationMessage(a.id));
    const r = await anonymous.post(`/api/attest/${a.id}/revoke`, { issuerSignature: sig });
    expect(r.status).toBe(200);
    expect((await anonymous.post('/api/attest/verify', { attestation: issued[2] })).json.revoked).toBe(true);
  });

  // Last: it moves the clock past every session's lifetime.
  it('after expiry verify says expired', async () => {
    advanceClock(366 * 86_400_000);
    const v = await anonymous.post('/api/attest/verify', { attestation: issued[0] });
    expect(v.json).toEqual({ success: true, valid: false, revoked: false, expired: true, reasons: ['expired'] });
  });
});
