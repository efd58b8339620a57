import { createCipheriv, createDecipheriv, randomBytes, scrypt as scryptCb, type ScryptOptions } from 'node:crypto';
import type { SealedKey } from '#lib/data/wallets.ts';
import type { KeyVault } from './vault.ts';

/**
 * A wallet's private key at rest: AES-256-GCM under the wallet's own data key, with the wallet id
 * and address as associated data, so a ciphertext copied into another wallet's record does not
 * decrypt. The data key is wrapped by the vault (KMS in production) with the same binding as its
 * encryption context. Plaintext keys live only in memory, for one signature.
 */
const aad = (walletId: string, address: string) => Buffer.from(`shroud-wallet:v1:${walletId}:${address}`);
const context = (walletId: string, address: string) => ({ walletId, address });

export async function sealKey(vault: KeyVault, walletId: string, address: string, secret: Uint8Array): Promise<SealedKey> {
  const dataKey = await vault.generateDataKey(context(walletId, address));
  try {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', dataKey.plaintext, iv).setAAD(aad(walletId, address));
    const ciphertext = Buffer.concat([cipher.update(secret), cipher.final()]);
    return {
      vault: vault.id,
      dataKey: dataKey.wrapped,
      iv: iv.toString('base64'),
      ciphertext: ciphertext.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
    };
  } finally {
    dataKey.plaintext.fill(0);
  }
}

/** The secret, or an error when the record was tampered with or moved to another wallet. */
export async function openKey(vault: KeyVault, walletId: string, address: string, sealed: SealedKey): Promise<Buffer> {
  if (sealed.vault !== vault.id) throw new Error(`the key was sealed by vault ${sealed.vault}, this function uses ${vault.id}`);
  const key = await vault.unwrapDataKey(sealed.dataKey, context(walletId, address));
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64')).setAAD(aad(walletId, address));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]);
  } finally {
    key.fill(0);
  }
}

// ---- the password layer (chain B) -----------------------------------------------------------

/** scrypt N=2^15, r=8, p=1 (~100 ms, 32 MiB): a password guess costs the same to an attacker. */
const SCRYPT: ScryptOptions = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const PASSWORD_WRAP_VERSION = 1;

const scrypt = (password: string, salt: Buffer) =>
  new Promise<Buffer>((resolve, reject) => scryptCb(password.normalize('NFKC'), salt, 32, SCRYPT, (e, k) => (e ? reject(e) : resolve(k))));

/**
 * The key wrapped under the user's password (chain B): version ‖ salt ‖ iv ‖ tag ‖ ciphertext.
 * The result is what the envelope then seals, so opening needs both the vault and the password.
 */
export async function wrapWithPassword(secret: Uint8Array, password: string, walletId: string, address: string): Promise<Buffer> {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const key = await scrypt(password, salt);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(aad(walletId, address));
  const ct = Buffer.concat([cipher.update(secret), cipher.final()]);
  key.fill(0);
  return Buffer.concat([Buffer.from([PASSWORD_WRAP_VERSION]), salt, iv, cipher.getAuthTag(), ct]);
}

export class WrongPassword extends Error {
  constructor() {
    super('wrong password');
    this.name = 'WrongPassword';
  }
}

export async function unwrapWithPassword(wrapped: Uint8Array, password: string, walletId: string, address: string): Promise<Buffer> {
  const b = Buffer.from(wrapped);
  if (b[0] !== PASSWORD_WRAP_VERSION) throw new Error('unknown password-wrap version');
  const key = await scrypt(password, b.subarray(1, 17));
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, b.subarray(17, 29)).setAAD(aad(walletId, address));
    decipher.setAuthTag(b.subarray(29, 45));
    return Buffer.concat([decipher.update(b.subarray(45)), decipher.final()]);
  } catch {
    throw new WrongPassword();
  } finally {
    key.fill(0);
  }
}
