import { beforeAll, describe, expect, it } from 'vitest';
import { identityProofRequest, unlockIdentity } from '#lib/client/identity.ts';
import { HttpClient } from '../support/runtime.ts';
import { sharedNpmStart } from '../support/npm-start.ts';
import { newIdentity, PASSWORD, uniqueName } from './identity-helpers.ts';

/**
 * The "done when": the real `npm start` (its own processes and DATA_DIR, a free port; the
 * run's shared one, test/support/shared-npm-start.ts, which checks that it stops cleanly),
 * then register → login → session → me → identity → submit-proof → logout over HTTP, and the
 * proof read back from the registry's get_proof (GET /api/chainb/proofs/:proofId).
 */
let base: string;

beforeAll(async () => {
  base = (await sharedNpmStart()).url;
}, 120_000);

describe('npm start: the identity story', () => {
  it('register → login → session → me → identity → submit-proof → logout, then get_proof', async () => {
    const client = new HttpClient(base);
    const username = uniqueName('e2e');
    const { encrypted } = await newIdentity();

    const reg = await client.post('/api/auth/register', { username, password: PASSWORD, ...encrypted });
    expect(reg.status).toBe(201);
    const { zkId, id } = reg.json.user;

    const login = await client.post('/api/auth/login', { username, password: PASSWORD });
    expect(login.status).toBe(200);
    expect(login.json.user).toEqual({ id, username, zkId });

    expect((await client.get('/api/auth/session')).json).toMatchObject({ authenticated: true, user: { id, zkId } });
    expect((await client.get('/api/auth/me')).json).toEqual({ user: { id, zkId, username } });

    const blob = await client.get('/api/auth/identity');
    expect(blob.status).toBe(200);
    const privateKey = await unlockIdentity(blob.json, PASSWORD);

    const proof = await client.post('/api/chainb/submit-proof', await identityProofRequest(zkId, { privateKey, publicKeyBase64: blob.json.identityPublicKey }));
    expect(proof.status).toBe(200);
    expect(proof.json).toMatchObject({
      success: true,
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      contractAddress: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });

    expect((await client.post('/api/auth/logout')).status).toBe(200);
    expect((await client.get('/api/auth/me')).status).toBe(401);

    const stored = await client.get(`/api/chainb/proofs/${proof.json.proofId}`);
    expect(stored.status).toBe(200);
    expect(stored.json.contractAddress).toBe(proof.json.contractAddress);
    expect(stored.json.proof).toMatchObject({
      proof_id: `0x${proof.json.proofId.replace(/-/g, '').padStart(64, '0')}`,
      zk_id: `0x${Buffer.from(zkId).toString('hex').padStart(64, '0')}`,
      proof_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      owner: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
  });
});
