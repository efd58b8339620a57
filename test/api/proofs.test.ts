import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock, clock } from '#lib/clock.ts';
import { identityProofRequest, unlockIdentity } from '#lib/client/identity.ts';
import { scopeSignal } from '#lib/attest/fields.ts';
import { generateProof, terminateCurves } from '#lib/zk/groth16.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { partsA, proofOf, randomBytesOf, signedIn, upload } from '../support/storage.ts';
import { PASSWORD, signedInUser } from './identity-helpers.ts';

/**
 * /api/proofs over HTTP: every group that makes or checks a proof for a signed-in user records it
 * through the one recorder (toolkit, storage, chain B identity proofs, attestations), and the
 * user lists, filters, pages, re-verifies, exports, counts and deletes their records.
 */
let rt: TestRuntime;
let carol: HttpClient;
let carolId: `${string}-${string}-${string}-${string}-${string}`;
let bob: HttpClient & { userId: string };
const SECRET = '987654321987654321';

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20', PROOF_HISTORY_RETENTION_DAYS: '2' });
  carol = rt.client();
  const account = await signedInUser(carol);
  carolId = account.user.id as typeof carolId;
  bob = await signedIn(rt);

  // What carol does across the groups, in order.
  await carol.post('/api/zk-toolkit/proof/generate', { circuit: 'preimage', inputs: { secret: SECRET } });
  const made = (await carol.post('/api/zk-toolkit/proof/generate', { circuit: 'preimage', inputs: { secret: '77' } })).json.data;
  await carol.post('/api/zk-toolkit/proof/verify', { circuit: 'preimage', proof: made.proof, publicSignals: made.publicSignals });
  await carol.post('/api/zk-toolkit/proof/verify', { circuit: 'preimage', proof: made.proof, publicSignals: ['1'] });
  await rt.client().post('/api/zk-toolkit/proof/generate', { circuit: 'preimage', inputs: { secret: '5' } }); // anonymous: not recorded

  const bytes = randomBytesOf(2000, 3);
  const up = await upload(carol, { file: { bytes, name: 'f.enc' }, fields: await partsA(bytes) });
  if (up.status !== 201) throw new Error(`upload: ${JSON.stringify(up.json)}`);
  const p = await proofOf('pw-alpha');
  const dl = await carol.post('/api/storage/download', { fileId: up.json.id, proof: p.proof, publicSignals: p.publicSignals });
  if (dl.status !== 200) throw new Error(`download: ${dl.status}`);

  const blob = (await carol.get('/api/auth/identity')).json;
  const keys = { privateKey: await unlockIdentity(blob, PASSWORD), publicKeyBase64: blob.identityPublicKey };
  const idp = await carol.post('/api/chainb/submit-proof', await identityProofRequest(account.user.zkId, keys, clock.nowMs()));
  if (idp.status !== 200) throw new Error(`identity proof: ${JSON.stringify(idp.json)}`);

  advanceClock(61_000);
  const age = await generateProof('range_scoped', {
    value: '30',
    blinding: '99',
    min: '18',
    max: '150',
    scope: scopeSignal('age-over-18', 'default').toString(),
  });
  const at = await carol.post('/api/attest', { schema: 'age-over-18', proof: age.proof, publicSignals: age.publicSignals });
  if (at.status !== 201) throw new Error(`attest: ${JSON.stringify(at.json)}`);
}, 600_000);
afterAll(async () => {
  await rt?.stop();
  await terminateCurves();
});
beforeEach(() => advanceClock(61_000));

type Rec = {
  id: string;
  type: string;
  action: string;
  result: string;
  circuit?: string;
  vkHash?: string;
  publicSignals?: string[];
  links: Record<string, string>;
  createdAt: string;
};
const all = async (c: HttpClient, query = ''): Promise<Rec[]> => {
  const out: Rec[] = [];
  let cursor: string | null = null;
  do {
    const res = await c.get(`/api/proofs?limit=3${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    out.push(...res.json.proofs);
    cursor = res.json.nextCursor;
  } while (cursor);
  return out;
};

describe('the recorder, across groups', () => {
  it('records what each group did, newest first, and nothing private', async () => {
    const records = await all(carol);
    expect(records.map((r) => `${r.type}:${r.action}:${r.result}`)).toEqual([
      'attestation:accepted:valid',
      'identity:accepted:valid',
      'storage:accepted:valid',
      'storage:accepted:valid',
      'toolkit:verified:invalid',
      'toolkit:verified:valid',
      'toolkit:generated:valid',
      'toolkit:generated:valid',
    ]);
    const [attestation, identity, download, uploaded, , , , first] = records;
    expect(attestation).toMatchObject({
      circuit: 'range_scoped',
      vkHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      links: { attestationId: expect.any(String) },
    });
    expect(identity!.links).toMatchObject({ txHash: expect.stringMatching(/^0x/), proofId: expect.any(String) });
    expect(download!.links.fileId).toBe(uploaded!.links.fileId);
    expect(uploaded).toMatchObject({ circuit: 'password', publicSignals: [expect.any(String)] });
    expect(first).toMatchObject({ circuit: 'preimage', publicSignals: [expect.any(String)] });
    const text = JSON.stringify(records);
    for (const secret of [SECRET, 'pw-alpha', '"99"', 'blinding', 'inputs']) expect(text).not.toContain(secret);
    expect(await all(bob)).toEqual([]);
    // The assistant's proof_history tool: the same records, newest first, read as one page.
    const { callTool } = await import('#lib/ai/tools.ts');
    const tool = (await callTool({ userId: carolId }, 'proof_history', {})) as { data: Rec[] };
    expect(tool.data.map((r) => r.id)).toEqual(records.map((r) => r.id));
  });

  it('filters by type and time', async () => {
    expect((await all(carol, '&type=toolkit')).every((r) => r.type === 'toolkit')).toBe(true);
    expect(await all(carol, '&type=toolkit')).toHaveLength(4);
    const records = await all(carol);
    const newest = records[0]!.createdAt;
    expect((await all(carol, `&from=${encodeURIComponent(newest)}`)).map((r) => r.id)).toEqual([records[0]!.id]);
    expect((await all(carol, `&to=${Date.parse(records[1]!.createdAt)}`)).map((r) => r.id)).toEqual(records.slice(1).map((r) => r.id));
    expect((await carol.get('/api/proofs?type=nope')).status).toBe(400);
    expect((await carol.get('/api/proofs?from=2030-01-01T00:00:00Z&to=2020-01-01T00:00:00Z')).status).toBe(400);
    expect((await carol.get('/api/proofs?cursor=abc')).status).toBe(400);
  });

  it('reads one record; another user gets 404', async () => {
    const [r] = await all(carol);
    const one = await carol.get(`/api/proofs/${r!.id}`);
    expect(one.json).toEqual({ success: true, proof: r });
    expect((await bob.get(`/api/proofs/${r!.id}`)).status).toBe(404);
    expect((await carol.get('/api/proofs/not-an-id')).status).toBe(400);
    expect((await rt.client().get(`/api/proofs/${r!.id}`)).status).toBe(401);
  });

  it('re-verifies a stored proof against the pinned key', async () => {
    const records = await all(carol);
    for (const r of records.filter((x) => x.type !== 'toolkit' || x.result === 'valid')) {
      const v = await carol.post(`/api/proofs/${r.id}/verify`, {});
      expect(v.json, `${r.type} ${r.action}`).toEqual({ success: true, valid: true, verifiedAt: expect.any(String) });
    }
    const invalid = records.find((x) => x.result === 'invalid')!;
    expect((await carol.post(`/api/proofs/${invalid.id}/verify`, {})).json).toMatchObject({ valid: false, reason: 'the proof does not verify' });
    expect((await bob.post(`/api/proofs/${invalid.id}/verify`, {})).status).toBe(404);
  });

  it('exports NDJSON, newest first, with the filters', async () => {
    // Raw fetch: the test client would parse a body whose type mentions json as one JSON document.
    const exported = (c: HttpClient, query = '') =>
      fetch(new URL(`/api/proofs/export${query}`, rt.url), { headers: { cookie: [...c.jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    const res = await exported(carol);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = (await res.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual(await all(carol));
    const storage = await exported(carol, '?type=storage');
    expect((await storage.text()).trimEnd().split('\n')).toHaveLength(2);
    expect(await (await exported(bob)).text()).toBe('');
  });

  it('counts by type and result', async () => {
    const res = await carol.get('/api/proofs/stats');
    expect(res.json).toEqual({
      success: true,
      total: 8,
      byType: { toolkit: 4, storage: 2, identity: 1, attestation: 1 },
      byResult: { valid: 7, invalid: 1 },
      byTypeAndResult: { toolkit: { valid: 3, invalid: 1 }, storage: { valid: 2 }, identity: { valid: 1 }, attestation: { valid: 1 } },
    });
  });

  it("deletes the owner's record only", async () => {
    const [r] = await all(carol, '&type=toolkit');
    expect((await bob.delete(`/api/proofs/${r!.id}`)).status).toBe(404);
    expect((await carol.delete(`/api/proofs/${r!.id}`)).json).toEqual({ success: true, deleted: true });
    expect((await carol.get(`/api/proofs/${r!.id}`)).status).toBe(404);
    expect((await carol.delete(`/api/proofs/${r!.id}`)).status).toBe(404);
  });

  // Last: it moves the clock past the sessions' lifetime.
  it('records expire after the retention setting (2 days here)', async () => {
    expect((await all(carol)).length).toBeGreaterThan(0);
    advanceClock(3 * 86_400_000);
    const again = await signedIn(rt, carolId);
    expect(await all(again)).toEqual([]);
  });
});
