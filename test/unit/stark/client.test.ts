// The client-held mode: the client (lib/client/stark-key.ts) makes the key and proves; the server
// verifies against public inputs it derives itself. The client prover must run without Node: it is
// bundled for the browser and run in a bare V8 context that has only WebCrypto's getRandomValues
// and TextEncoder (no Buffer, process, require or node: modules).
import { describe, it, expect } from 'vitest';
import { build } from 'esbuild';
import { createContext, runInContext } from 'node:vm';
import { join } from 'node:path';
import { createSessionKey, proveSessionKey, exportSessionKey, importSessionKey, clientProofExpiry } from '../../../lib/client/stark-key.ts';
import {
  verifyClientSessionProof,
  decodeKeyHash,
  custodyOf,
  proveSession,
  publicKeyHash,
  generateSecretKey,
  AIR_VERSION,
  SECURITY,
} from '../../../lib/stark/index.ts';
import { verifyStatement } from '../../../lib/stark/verifier.ts';
import { DEFAULT_PARAMS } from '../../../lib/stark/params.ts';

const repo = join(import.meta.dirname, '..', '..', '..');
const NOW = 1_893_456_789;

describe('client-held session key', () => {
  const key = createSessionKey();
  const keyHash = decodeKeyHash(key.keyHash)!;
  const proof = proveSessionKey(key, { sessionId: 'sess-binding-1', nowSeconds: NOW });

  it('makes a key and sends only its hash; the export round-trips', () => {
    expect(key.keyHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(keyHash).toEqual(publicKeyHash(key.secretKey));
    expect(importSessionKey(exportSessionKey(key))).toEqual(key);
    expect(() => importSessionKey('zz')).toThrow();
    expect(createSessionKey().keyHash).not.toBe(key.keyHash);
  });

  it('proves; the server verifies against inputs it derives (key hash, binding, expiry from its clock, custody client)', () => {
    expect(proof.cairo_version).toBe(AIR_VERSION);
    expect(proof.expiresAt).toBe(clientProofExpiry(NOW));
    expect(custodyOf(proof.public_inputs)).toBe('client');
    const ok = verifyClientSessionProof(proof.stark_proof, { keyHash, sessionId: 'sess-binding-1', nowSeconds: NOW });
    expect(ok).toEqual({ publicInputs: proof.public_inputs, expiresAt: proof.expiresAt });
    // A server clock a little behind or ahead (another hour) still derives the same expiry among its candidates.
    expect(verifyClientSessionProof(proof.stark_proof, { keyHash, sessionId: 'sess-binding-1', nowSeconds: NOW + 3600 })).not.toBeNull();
    expect(verifyClientSessionProof(proof.stark_proof, { keyHash, sessionId: 'sess-binding-1', nowSeconds: NOW - 3600 })).not.toBeNull();
  });

  it('proves at the shipped parameters (the ones the server enforces)', () => {
    const r = verifyStatement(Buffer.from(proof.stark_proof, 'hex'), proof.public_inputs.map(BigInt), DEFAULT_PARAMS);
    expect(r.ok && r.positions.length).toBe(DEFAULT_PARAMS.queries);
    expect(SECURITY.provenBits).toBeGreaterThanOrEqual(100);
  });

  it('rejects replays: another session, another key hash, a later time, a server-held label', () => {
    expect(verifyClientSessionProof(proof.stark_proof, { keyHash, sessionId: 'sess-binding-2', nowSeconds: NOW })).toBeNull();
    expect(
      verifyClientSessionProof(proof.stark_proof, { keyHash: publicKeyHash(generateSecretKey()), sessionId: 'sess-binding-1', nowSeconds: NOW }),
    ).toBeNull();
    expect(verifyClientSessionProof(proof.stark_proof, { keyHash, sessionId: 'sess-binding-1', nowSeconds: NOW + 3 * 3600 })).toBeNull();
    // A server-held proof for the same key, session and expiry does not pass as client-held.
    const serverMade = proveSession(key.secretKey, { keyHash, sessionId: 'sess-binding-1', expiresAt: proof.expiresAt, custody: 'server' });
    expect(verifyClientSessionProof(serverMade.starkProof, { keyHash, sessionId: 'sess-binding-1', nowSeconds: NOW })).toBeNull();
    expect(verifyClientSessionProof('00' + proof.stark_proof.slice(2), { keyHash, sessionId: 'sess-binding-1', nowSeconds: NOW })).toBeNull();
  });

  it('runs in a browser bundle with no Node APIs', async () => {
    const result = await build({
      entryPoints: [join(repo, 'lib', 'client', 'stark-key.ts')],
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'iife',
      globalName: 'starkClient',
      target: 'es2022',
      logLevel: 'silent',
    });
    const code = result.outputFiles[0].text;
    expect(code).not.toMatch(/\bnode:|require\(|\bBuffer\b|\bprocess\./);
    const sandbox = createContext({ crypto: { getRandomValues: (a: Uint8Array) => globalThis.crypto.getRandomValues(a) }, TextEncoder });
    runInContext(code, sandbox);
    const out = runInContext(
      `(() => { const k = starkClient.createSessionKey(); const p = starkClient.proveSessionKey(k, { sessionId: 'browser-session', nowSeconds: ${NOW} }); return JSON.stringify({ keyHash: k.keyHash, proof: p }); })()`,
      sandbox,
    ) as string;
    const { keyHash: kh, proof: p } = JSON.parse(out) as { keyHash: string; proof: { stark_proof: string } };
    expect(verifyClientSessionProof(p.stark_proof, { keyHash: decodeKeyHash(kh)!, sessionId: 'browser-session', nowSeconds: NOW })).not.toBeNull();
  }, 120_000);
});
