import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPoseidon, type Poseidon } from 'circomlibjs';
import { AppError } from '#lib/errors.ts';
import { artifactPath } from '#lib/zk/circuits.ts';
import { generateProof, terminateCurves, verifyProof } from '#lib/zk/groth16.ts';
import { passwordCommitment, passwordInputs, passwordProof, randomSalt } from '#lib/client/password-proof.ts';
import { BN254_R } from '#lib/zk/bn254.ts';

let poseidon: Poseidon;

beforeAll(async () => {
  poseidon = await buildPoseidon();
});

afterAll(async () => {
  await terminateCurves();
});

describe('password encoding', () => {
  it('splits SHA-256(UTF-8 password) into big-endian halves: pw_hi first 16 bytes, pw_lo last 16', async () => {
    const password = 'correct horse battery staple ✓';
    const digest = createHash('sha256').update(Buffer.from(password, 'utf8')).digest('hex');
    const inputs = await passwordInputs(password, 7n);
    expect(inputs).toEqual({
      pw_hi: BigInt(`0x${digest.slice(0, 32)}`).toString(),
      pw_lo: BigInt(`0x${digest.slice(32)}`).toString(),
      salt: '7',
    });
  });

  it('known vector: the empty password', async () => {
    // SHA-256("") = e3b0c442 98fc1c14 9afbf4c8 996fb924 27ae41e4 649b934c a495991b 7852b855
    const inputs = await passwordInputs('', 0n);
    expect(BigInt(inputs.pw_hi)).toBe(0xe3b0c44298fc1c149afbf4c8996fb924n);
    expect(BigInt(inputs.pw_lo)).toBe(0x27ae41e4649b934ca495991b7852b855n);
  });

  it('the commitment is circomlibjs Poseidon(pw_lo, pw_hi, salt)', async () => {
    const salt = randomSalt();
    const { pw_lo, pw_hi } = await passwordInputs('hunter2', salt);
    const expected = poseidon.F.toObject(poseidon([BigInt(pw_lo), BigInt(pw_hi), salt])).toString();
    expect(await passwordCommitment('hunter2', salt)).toBe(expected);
  });

  it('randomSalt is a field element and varies', () => {
    const salts = new Set(Array.from({ length: 50 }, () => randomSalt()));
    expect(salts.size).toBe(50);
    for (const s of salts) expect(s >= 0n && s < BN254_R).toBe(true);
  });

  it('refuses salts outside the field', async () => {
    await expect(passwordInputs('x', BN254_R)).rejects.toMatchObject({ code: 'FIELD_OVERFLOW' });
    await expect(passwordInputs('x', -1n)).rejects.toBeInstanceOf(AppError);
  });
});

describe('password proofs', () => {
  const salt = 1234567890123456789012345678901234567890n;

  it('the client proof carries the commitment as publicSignals[0] and verifies on the server', async () => {
    const { proof, publicSignals, commitment } = await passwordProof('s3cret', salt);
    expect(commitment).toBe(await passwordCommitment('s3cret', salt));
    expect(publicSignals).toEqual([commitment]);
    expect(await verifyProof('password', proof, publicSignals)).toBe(true);
  });

  it('works with artifact bytes (the browser path) and matches generateProof', async () => {
    const artifacts = { wasm: readFileSync(artifactPath('password', 'wasm')), zkey: readFileSync(artifactPath('password', 'zkey')) };
    const client = await passwordProof('s3cret', salt, artifacts);
    const server = await generateProof('password', { ...(await passwordInputs('s3cret', salt)) });
    expect(server.publicSignals).toEqual(client.publicSignals);
    expect(await verifyProof('password', client.proof, server.publicSignals)).toBe(true);
  });

  it('a wrong-password proof does not verify against the right commitment', async () => {
    const right = await passwordCommitment('s3cret', salt);
    const wrong = await passwordProof('s3cret!', salt);
    expect(wrong.commitment).not.toBe(right);
    expect(await verifyProof('password', wrong.proof, wrong.publicSignals)).toBe(true); // valid for its own commitment
    expect(await verifyProof('password', wrong.proof, [right])).toBe(false);
  });

  it('the same password with another salt gives another commitment', async () => {
    expect(await passwordCommitment('s3cret', salt)).not.toBe(await passwordCommitment('s3cret', salt + 1n));
  });
});
