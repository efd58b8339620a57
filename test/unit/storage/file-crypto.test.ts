import { describe, expect, it } from 'vitest';
import { commitmentSalt, decryptFile, encryptFile, PBKDF2_ITERATIONS, proofSecret } from '#lib/client/file-crypto.ts';

describe('file crypto (AES-256-GCM, PBKDF2-SHA256 100000)', () => {
  it('round-trips, with a fresh salt and iv per file', async () => {
    const bytes = new TextEncoder().encode('attack at dawn');
    const a = await encryptFile(bytes, 'pw');
    const b = await encryptFile(bytes, 'pw');
    expect(a.iterations).toBe(PBKDF2_ITERATIONS);
    expect(PBKDF2_ITERATIONS).toBe(100_000);
    expect(a.iv).toHaveLength(12);
    expect(a.salt).toHaveLength(16);
    expect(a.ciphertext).toHaveLength(bytes.length + 16); // the GCM tag
    expect(Buffer.from(a.ciphertext).equals(Buffer.from(b.ciphertext))).toBe(false);
    expect(new TextDecoder().decode(await decryptFile(a, 'pw'))).toBe('attack at dawn');
  });

  it('a wrong password or an altered byte does not decrypt', async () => {
    const enc = await encryptFile(new Uint8Array([1, 2, 3]), 'right');
    await expect(decryptFile(enc, 'wrong')).rejects.toThrow(/wrong password/);
    enc.ciphertext[0] ^= 1;
    await expect(decryptFile(enc, 'right')).rejects.toThrow();
  });

  it('the proof secret depends on password and salt; the commitment salt is the 128-bit salt', async () => {
    const salt = new Uint8Array(16).fill(1);
    const s1 = await proofSecret('pw', salt);
    expect(s1).toMatch(/^[0-9a-f]{64}$/);
    expect(await proofSecret('pw', salt)).toBe(s1);
    expect(await proofSecret('pw2', salt)).not.toBe(s1);
    expect(await proofSecret('pw', new Uint8Array(16))).not.toBe(s1);
    expect(commitmentSalt(salt)).toBe(0x01010101010101010101010101010101n);
  });
});
