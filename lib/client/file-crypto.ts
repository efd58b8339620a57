/**
 * File encryption as the client does it, before anything leaves the machine: AES-256-GCM under
 * a key derived from the password with PBKDF2-SHA256 (100000 iterations), through WebCrypto so
 * the same code runs in browsers and in Node. The server only ever sees ciphertext.
 *
 * The same PBKDF2 output also yields the secret the password proof is made of (an HMAC of it,
 * not the password itself): the commitment stored beside the file is then no cheaper to
 * brute-force than the ciphertext. A forgotten password cannot be recovered: nothing else
 * decrypts the file, and the server holds nothing that could.
 */
export const PBKDF2_ITERATIONS = 100_000;
const IV_BYTES = 12;
const SALT_BYTES = 16;

export interface EncryptedFile {
  ciphertext: Uint8Array;
  /** AES-GCM nonce, 12 bytes. */
  iv: Uint8Array;
  /** PBKDF2 salt, 16 bytes, random per file. */
  salt: Uint8Array;
  iterations: number;
}

const subtle = () => globalThis.crypto.subtle;
const utf8 = (s: string) => new TextEncoder().encode(s);
const buf = (b: Uint8Array): ArrayBuffer => b.slice().buffer as ArrayBuffer;

async function masterBits(password: string, salt: Uint8Array, iterations: number): Promise<ArrayBuffer> {
  if (typeof password !== 'string' || password.length === 0) throw new Error('a password is required');
  const base = await subtle().importKey('raw', utf8(password), 'PBKDF2', false, ['deriveBits']);
  return subtle().deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: buf(salt), iterations }, base, 256);
}

async function keysOf(password: string, salt: Uint8Array, iterations: number) {
  const bits = await masterBits(password, salt, iterations);
  const aes = await subtle().importKey('raw', bits, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
  const mac = await subtle().importKey('raw', bits, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const secret = new Uint8Array(await subtle().sign('HMAC', mac, utf8('shroud/password-proof/v1')));
  return { aes, proofSecret: toHex(secret) };
}

export function toHex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

export async function encryptFile(bytes: Uint8Array, password: string, iterations = PBKDF2_ITERATIONS): Promise<EncryptedFile> {
  const salt = globalThis.crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const iv = globalThis.crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const { aes } = await keysOf(password, salt, iterations);
  const ciphertext = new Uint8Array(await subtle().encrypt({ name: 'AES-GCM', iv: buf(iv) }, aes, buf(bytes)));
  return { ciphertext, iv, salt, iterations };
}

/** The plaintext, or an error when the password is wrong or the bytes were altered (GCM's tag). */
export async function decryptFile(file: Omit<EncryptedFile, 'iterations'> & { iterations?: number }, password: string): Promise<Uint8Array> {
  const { aes } = await keysOf(password, file.salt, file.iterations ?? PBKDF2_ITERATIONS);
  try {
    return new Uint8Array(await subtle().decrypt({ name: 'AES-GCM', iv: buf(file.iv) }, aes, buf(file.ciphertext)));
  } catch {
    throw new Error('wrong password, or the file was altered');
  }
}

/** What the password proof proves knowledge of for this file (see the module comment). */
export async function proofSecret(password: string, salt: Uint8Array, iterations = PBKDF2_ITERATIONS): Promise<string> {
  return (await keysOf(password, salt, iterations)).proofSecret;
}

/** The commitment's salt, a field element taken from the file's PBKDF2 salt (128 bits < r). */
export function commitmentSalt(salt: Uint8Array): bigint {
  return BigInt(`0x${toHex(salt)}`);
}

export function toBase64(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
}

export function fromBase64(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export async function sha256Hex(b: Uint8Array): Promise<string> {
  return toHex(new Uint8Array(await subtle().digest('SHA-256', buf(b))));
}
