import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { openKey, sealKey, unwrapWithPassword, WrongPassword, wrapWithPassword } from '#lib/wallets/custody.ts';
import { chainBAddress, generateKey, importKey, InvalidSecretKey, OZ_ACCOUNT_CLASS_HASH } from '#lib/wallets/keys.ts';
import { LocalVault } from '#lib/wallets/vault.ts';
import { formatUnits, toUnits } from '#lib/wallets/amounts.ts';
import { hash, CallData, ec, num } from 'starknet';

const dir = mkdtempSync(join(tmpdir(), 'shroud-custody-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('envelope encryption (local vault)', () => {
  const vault = LocalVault.fromDataDir(dir);
  const secret = Keypair.generate().secretKey;

  it('keeps the master key in a 0600 file under DATA_DIR and reuses it', async () => {
    const file = join(dir, 'keys', 'wallet-master.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const sealed = await sealKey(vault, 'w1', 'addr1', secret);
    expect(await openKey(LocalVault.fromDataDir(dir), 'w1', 'addr1', sealed)).toEqual(Buffer.from(secret));
  });

  it('stores no plaintext and a fresh data key and IV per seal', async () => {
    const a = await sealKey(vault, 'w1', 'addr1', secret);
    const b = await sealKey(vault, 'w1', 'addr1', secret);
    expect(a.dataKey).not.toBe(b.dataKey);
    expect(a.ciphertext).not.toBe(b.ciphertext);
    expect(JSON.stringify(a)).not.toContain(Buffer.from(secret).toString('base64'));
  });

  it('binds the wallet id and address: a ciphertext moved to another wallet does not decrypt', async () => {
    const sealed = await sealKey(vault, 'w1', 'addr1', secret);
    await expect(openKey(vault, 'w2', 'addr1', sealed)).rejects.toThrow();
    await expect(openKey(vault, 'w1', 'addr2', sealed)).rejects.toThrow();
    const flipped = Buffer.from(sealed.ciphertext, 'base64');
    flipped[0]! ^= 1;
    await expect(openKey(vault, 'w1', 'addr1', { ...sealed, ciphertext: flipped.toString('base64') })).rejects.toThrow();
  });

  it('refuses a key sealed under another master key', async () => {
    const otherDir = mkdtempSync(join(tmpdir(), 'shroud-custody-other-'));
    onTestFinished(() => rmSync(otherDir, { recursive: true, force: true }));
    const other = LocalVault.fromDataDir(otherDir);
    const sealed = await sealKey(other, 'w1', 'addr1', secret);
    await expect(openKey(vault, 'w1', 'addr1', sealed)).rejects.toThrow();
  });
});

describe('password wrap (chain B)', () => {
  it('opens with the password only, bound to the wallet', async () => {
    const secret = Buffer.alloc(32, 7);
    const wrapped = await wrapWithPassword(secret, 'correct horse', 'w1', '0xabc');
    expect(await unwrapWithPassword(wrapped, 'correct horse', 'w1', '0xabc')).toEqual(secret);
    await expect(unwrapWithPassword(wrapped, 'wrong horse!', 'w1', '0xabc')).rejects.toBeInstanceOf(WrongPassword);
    await expect(unwrapWithPassword(wrapped, 'correct horse', 'w2', '0xabc')).rejects.toBeInstanceOf(WrongPassword);
  });
});

describe('keys and addresses', () => {
  it('chain A: base58 address of a 64-byte key; imports base58 and solana-keygen JSON', async () => {
    const kp = Keypair.generate();
    expect((await importKey('a', bs58.encode(kp.secretKey))).address).toBe(kp.publicKey.toBase58());
    expect((await importKey('a', JSON.stringify([...kp.secretKey]))).address).toBe(kp.publicKey.toBase58());
    expect((await generateKey('a')).address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
  });

  it('chain A: malformed keys are refused', async () => {
    const kp = Keypair.generate();
    const tampered = Uint8Array.from(kp.secretKey);
    tampered[40]! ^= 1; // public half no longer matches the seed
    for (const bad of ['', 'not-base58-0OIl', bs58.encode(kp.secretKey.subarray(0, 32)), '[1,2,3]', '[300]', bs58.encode(tampered)]) {
      await expect(importKey('a', bad), bad).rejects.toThrow(InvalidSecretKey);
    }
  });

  it('chain B: the OpenZeppelin account counterfactual address (salt = public key, calldata = [public key])', async () => {
    const pk = 0x1234567890abcdefn;
    const pub = ec.starkCurve.getStarkKey(num.toHex(pk));
    const expected = num.toHex64(hash.calculateContractAddressFromHash(pub, OZ_ACCOUNT_CLASS_HASH, CallData.compile([pub]), 0));
    expect(await chainBAddress(pk)).toBe(expected);
    expect((await importKey('b', '0x1234567890abcdef')).address).toBe(expected);
    expect((await generateKey('b')).address).toMatch(/^0x[0-9a-f]{64}$/);
    for (const bad of ['0x0', '1234', '0x' + 'f'.repeat(64), 'zz']) await expect(importKey('b', bad), bad).rejects.toThrow(InvalidSecretKey);
  });
});

describe('exact amounts', () => {
  it('converts whole units without floating-point error', () => {
    expect(toUnits(1.1, 9)).toBe(1_100_000_000n);
    expect(toUnits(1.5, 9)).toBe(1_500_000_000n);
    expect(toUnits(0.3, 9)).toBe(300_000_000n);
    expect(toUnits(0.000000001, 9)).toBe(1n);
    expect(toUnits(1e-7, 9)).toBe(100n);
    expect(toUnits(123456.654321, 6)).toBe(123456654321n);
    expect(toUnits(2e3, 0)).toBe(2000n);
    expect(formatUnits(1_500_000_000n, 9)).toBe('1.5');
    expect(formatUnits(1n, 9)).toBe('0.000000001');
    expect(formatUnits(12_000_000n, 6)).toBe('12');
    expect(formatUnits(0n, 6)).toBe('0');
  });

  it('refuses zero, negatives, non-finite values, too many decimals and too large', () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 1.0000000001, 1e30, 1e-10]) {
      expect(() => toUnits(bad, 9), String(bad)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT', status: 400 }));
    }
    expect(() => toUnits(0.5, 0)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
  });
});
