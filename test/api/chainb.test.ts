import { verify as nodeVerify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ec } from 'starknet';
import { fromBase64, identityProofRequest, newNonce, signIdentityProof, toBase64, unlockIdentity } from '#lib/client/identity.ts';
import { startTestRuntime, type TestRuntime, type HttpClient } from '../support/runtime.ts';
import { newIdentity, PASSWORD, signedInUser } from './identity-helpers.ts';

let rt: TestRuntime;
let client: HttpClient;
let account: Awaited<ReturnType<typeof signedInUser>>;
let keys: { privateKey: CryptoKey; publicKeyBase64: string };

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '10' });
  client = rt.client();
  account = await signedInUser(client);
  // As a client on a new device would: fetch the encrypted identity and unlock it with the password.
  const blob = (await client.get('/api/auth/identity')).json;
  keys = { privateKey: await unlockIdentity(blob, PASSWORD), publicKeyBase64: blob.identityPublicKey };
});
afterAll(async () => {
  await rt?.stop();
});

const submit = (body: unknown, c = client) => c.post('/api/chainb/submit-proof', body);

describe('POST /api/chainb/submit-proof', () => {
  it('stores the proof on the registry: {success, txHash, contractAddress}; readable by get_proof, with its event and history', async () => {
    const body = await identityProofRequest(account.user.zkId, keys);
    const res = await submit(body);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      success: true,
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      contractAddress: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      proofId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });

    const { proofRegistry } = await import('#lib/chains/chain-b/index.ts');
    const { LocalProofRegistry } = await import('#lib/local/chain-b/registry.ts');
    type DeferredProofRegistry = import('#lib/chains/embedded.ts').DeferredProofRegistry;
    const { identityProofHash, toHex64, uuidToFelt, zkIdToFelt } = await import('#lib/chains/chain-b/felts.ts');
    const { LOCAL_RESOURCE_BOUNDS, storeProofCall } = await import('#lib/chains/chain-b/registry.ts');
    const { invokeHash } = await import('#lib/chains/chain-b/account.ts');
    const registry = proofRegistry();
    expect(registry.address).toBe(res.json.contractAddress);

    const proofId = uuidToFelt(res.json.proofId);
    expect(await registry.verifyProofExists(proofId)).toBe(true);
    const stored = await registry.getProof(proofId);
    const proofHash = identityProofHash({
      proofId: res.json.proofId,
      zkId: body.zkId,
      publicKey: fromBase64(body.publicKey),
      nonce: body.nonce,
      timestamp: body.timestamp,
      signature: fromBase64(body.signature),
    });
    expect(stored).toEqual({
      proof_id: toHex64(proofId),
      proof_hash: toHex64(proofHash),
      zk_id: toHex64(zkIdToFelt(account.user.zkId)),
      owner: registry.accountAddress,
      timestamp: expect.any(Number),
    });
    expect(Math.abs(stored!.timestamp - Date.now() / 1000)).toBeLessThan(60);

    const events = await registry.getEvents({ proofId });
    expect(events).toEqual([{ ...stored, blockNumber: expect.any(Number), transactionHash: res.json.txHash }]);

    // The transaction hash is Starknet's INVOKE v3 hash of the store_proof call, signed by the server's key.
    // The emulator behind the port (lib/chains/embedded.ts), for its transactions and public key.
    const local = (await (registry as DeferredProofRegistry).load()) as InstanceType<typeof LocalProofRegistry>;
    const tx = (await local.getTransaction(res.json.txHash))!;
    const call = storeProofCall(registry.address, { proofId, proofHash, zkId: zkIdToFelt(account.user.zkId) });
    const recomputed = invokeHash({
      senderAddress: registry.accountAddress,
      calls: [call],
      nonce: BigInt(tx.nonce),
      chainId: local.chainId,
      resourceBounds: LOCAL_RESOURCE_BOUNDS,
    });
    expect(toHex64(recomputed)).toBe(res.json.txHash);
    const sig = new ec.starkCurve.Signature(BigInt(tx.signature[0]), BigInt(tx.signature[1]));
    expect(ec.starkCurve.verify(sig, res.json.txHash, local.accountPublicKey)).toBe(true);

    // Over HTTP too (GET /api/chainb/proofs/:proofId).
    const read = await rt.client().get(`/api/chainb/proofs/${res.json.proofId}`);
    expect(read.status).toBe(200);
    expect(read.json).toEqual({ success: true, proofId: res.json.proofId, contractAddress: registry.address, proof: stored });

    const { listProofs } = await import('#lib/proofs/history.ts');
    const history = await listProofs(account.user.id);
    expect(history[0]).toMatchObject({ type: 'identity', links: { txHash: res.json.txHash, proofId: res.json.proofId, contractAddress: registry.address } });
  });

  it('a replay of the same signed message is 409 "proof already exists"', async () => {
    const body = await identityProofRequest(account.user.zkId, keys);
    expect((await submit(body)).status).toBe(200);
    const again = await submit(body);
    expect(again.status).toBe(409);
    expect(again.json).toEqual({ error: 'PROOF_EXISTS', message: 'proof already exists' });
  });

  it('the same proof sent twice at once is stored once', async () => {
    const body = await identityProofRequest(account.user.zkId, keys);
    const results = await Promise.all([submit(body), submit(body, rt.client()), submit(body, rt.client())]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
  });

  it('a tampered signature, or a signature over other fields, is 401', async () => {
    const body = await identityProofRequest(account.user.zkId, keys);
    const sig = fromBase64(body.signature);
    sig[10] ^= 0x01;
    const tampered = await submit({ ...body, signature: toBase64(sig) });
    expect(tampered.status).toBe(401);
    expect(tampered.json).toEqual({ error: 'INVALID_CREDENTIALS', message: 'invalid signature' });
    // The nonce is bound: the same signature with another nonce does not verify.
    expect((await submit({ ...body, nonce: newNonce() })).status).toBe(401);
    expect((await submit({ ...body, timestamp: body.timestamp + 1 })).status).toBe(401);
    // The untampered message still goes through afterwards: failed attempts do not burn its nonce.
    expect((await submit(body)).status).toBe(200);
  });

  it("a key that is not the zkId's is 401, even with a valid signature by that key", async () => {
    const other = await newIdentity();
    const forged = await identityProofRequest(account.user.zkId, other.keys);
    const res = await submit(forged);
    expect(res.status).toBe(401);
    expect(res.json.message).toMatch(/not the one registered/);
    // The registered public key with someone else's signature: a bad signature.
    expect((await submit({ ...forged, publicKey: keys.publicKeyBase64 })).status).toBe(401);
    // An unknown zkId.
    expect((await submit(await identityProofRequest('did:zk:0000000000000000', keys))).status).toBe(401);
  });

  it('an expired (or far-future) timestamp is 401', async () => {
    for (const skew of [-6 * 60_000, 6 * 60_000]) {
      const body = await identityProofRequest(account.user.zkId, keys, Date.now() + skew);
      const res = await submit(body);
      expect(res.status).toBe(401);
      expect(res.json.message).toMatch(/timestamp/);
    }
    // Inside the window (4 minutes old) is fine.
    expect((await submit(await identityProofRequest(account.user.zkId, keys, Date.now() - 4 * 60_000))).status).toBe(200);
  });

  it('validates its fields (400, naming the field)', async () => {
    const body = await identityProofRequest(account.user.zkId, keys);
    const cases: [Record<string, unknown>, string][] = [
      [{ zkId: 'did:zk:UPPER' }, 'zkId'],
      [{ publicKey: toBase64(new Uint8Array(31)) }, 'publicKey'],
      [{ signature: 'abc' }, 'signature'],
      [{ nonce: 'short' }, 'nonce'],
      [{ nonce: 'has spaces in it!!' }, 'nonce'],
      [{ timestamp: '123' }, 'timestamp'],
      [{ timestamp: 1.5 }, 'timestamp'],
    ];
    for (const [patch, field] of cases) {
      const res = await submit({ ...body, ...patch });
      expect(res.status, JSON.stringify(patch)).toBe(400);
      expect(res.json.message).toContain(field);
    }
  });

  it("needs no session: the signature is the credential (the proof goes to the zkId owner's history)", async () => {
    const fields = { zkId: account.user.zkId, nonce: newNonce(), timestamp: Date.now() };
    const body = { ...fields, publicKey: keys.publicKeyBase64, signature: await signIdentityProof(fields, keys.privateKey) };
    expect(
      nodeVerify(
        null,
        Buffer.from(`shroud-identity-proof:v1\n${fields.zkId}\n${fields.nonce}\n${fields.timestamp}`),
        {
          key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(fromBase64(keys.publicKeyBase64)).toString('base64url') },
          format: 'jwk',
        },
        Buffer.from(fromBase64(body.signature)),
      ),
    ).toBe(true);
    const res = await submit(body, rt.client());
    expect(res.status).toBe(200);
  });

  it('GET /api/chainb/proofs/:proofId is 404 for an unknown proof and 400 for a non-uuid', async () => {
    expect((await rt.client().get('/api/chainb/proofs/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await rt.client().get('/api/chainb/proofs/nope')).status).toBe(400);
  });
});
