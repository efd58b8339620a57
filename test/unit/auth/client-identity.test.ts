import { createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createIdentity,
  fromBase64,
  identityProofMessage,
  identityProofRequest,
  newNonce,
  NONCE_PATTERN,
  signIdentityProof,
  unlockIdentity,
} from '#lib/client/identity.ts';

describe('client identity (WebCrypto)', () => {
  it('the canonical message is exactly four lines of UTF-8', () => {
    const bytes = identityProofMessage({ zkId: 'did:zk:abcdefghij012345', nonce: 'AAAAAAAAAAAAAAAA', timestamp: 1700000000000 });
    expect(new TextDecoder().decode(bytes)).toBe('shroud-identity-proof:v1\ndid:zk:abcdefghij012345\nAAAAAAAAAAAAAAAA\n1700000000000');
    expect(() => identityProofMessage({ zkId: 'a\nb', nonce: 'AAAAAAAAAAAAAAAA', timestamp: 1 })).toThrow();
    expect(() => identityProofMessage({ zkId: 'x', nonce: 'short', timestamp: 1 })).toThrow();
    expect(() => identityProofMessage({ zkId: 'x', nonce: 'AAAAAAAAAAAAAAAA', timestamp: 1.5 })).toThrow();
  });

  it('nonces are 22 base64url characters of fresh randomness', () => {
    const a = newNonce();
    expect(a).toMatch(NONCE_PATTERN);
    expect(a).toHaveLength(22);
    expect(newNonce()).not.toBe(a);
  });

  it('creates an identity whose encrypted key unlocks with the password only, and signs verifiable proofs', async () => {
    const { keys, encrypted } = await createIdentity('a long password', 100_000);
    expect(fromBase64(encrypted.identityPublicKey)).toHaveLength(32);
    expect(fromBase64(encrypted.identityPrivateKeyIv)).toHaveLength(12);
    expect(fromBase64(encrypted.kdfSalt)).toHaveLength(16);
    expect(encrypted.kdfIterations).toBe(100_000);
    await expect(unlockIdentity(encrypted, 'another password')).rejects.toThrow(/wrong password/);
    const privateKey = await unlockIdentity(encrypted, 'a long password');

    const body = await identityProofRequest('did:zk:abcdefghij012345', { privateKey, publicKeyBase64: keys.publicKeyBase64 });
    const server = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(fromBase64(body.publicKey)).toString('base64url') }, format: 'jwk' });
    expect(verify(null, identityProofMessage(body), server, fromBase64(body.signature))).toBe(true);
    expect(verify(null, identityProofMessage({ ...body, timestamp: body.timestamp + 1 }), server, fromBase64(body.signature))).toBe(false);
    // Ed25519 is deterministic: the original key and the unlocked one sign alike.
    const fields = { zkId: 'did:zk:abcdefghij012345', nonce: 'AAAAAAAAAAAAAAAA', timestamp: 5 };
    expect(await signIdentityProof(fields, privateKey)).toBe(await signIdentityProof(fields, keys.privateKey));
  });
});
