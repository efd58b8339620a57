import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DecryptCommand } from '@aws-sdk/client-kms';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { once } from '#lib/zk/circomlib/once.ts';
import { attestConfig, kmsClient } from './config.ts';
import { publicKeyOf, signPoseidon, verifyPoseidon, type PointData, type SignatureData } from './eddsa.ts';

/**
 * The issuer: one EdDSA (Baby JubJub, Poseidon) key that signs every attestation. Its private
 * key never leaves this module: never logged, returned or stored in the table.
 *   - AWS: KMS-encrypted configuration (`ATTEST_ISSUER_KEY_CIPHERTEXT`), decrypted once per cold start,
 *     or else the stack's generated secret (`ATTEST_ISSUER_SECRET_ARN`), read once per cold start;
 *   - embedded default: `DATA_DIR/keys/attest-issuer.key`, 32 random bytes (base64, 0600), made once.
 */
export const KMS_CONTEXT = { purpose: 'shroud-attest-issuer' };

export interface IssuerInfo {
  algorithm: 'eddsa-poseidon-babyjubjub';
  publicKey: PointData;
  /** sha256 of "x:y" (hex, first 16 bytes): a short name for the key. */
  keyId: string;
}

function localKey(dataDir: string): Buffer {
  const dir = join(dataDir, 'keys');
  const file = join(dir, 'attest-issuer.key');
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    try {
      writeFileSync(file, randomBytes(32).toString('base64'), { flag: 'wx', mode: 0o600 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e; // another process made it first
    }
    chmodSync(file, 0o600);
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`the attest issuer key file ${file} must hold 32 bytes (base64)`);
  return key;
}

async function kmsKey(ciphertext: string): Promise<Buffer> {
  const out = await kmsClient().send(new DecryptCommand({ CiphertextBlob: Buffer.from(ciphertext, 'base64'), EncryptionContext: KMS_CONTEXT }));
  if (!out.Plaintext || out.Plaintext.length !== 32) throw new Error('ATTEST_ISSUER_KEY_CIPHERTEXT must decrypt to 32 bytes');
  return Buffer.from(out.Plaintext);
}

/** The key from the stack's generated secret: 32 bytes of SHA-256 over its string (64 random alphanumerics). */
export async function secretKey(arn: string, client: SecretsManagerClient = new SecretsManagerClient({ region: arn.split(':')[3] })): Promise<Buffer> {
  const out = await client.send(new GetSecretValueCommand({ SecretId: arn }));
  if (!out.SecretString || out.SecretString.length < 32) throw new Error(`ATTEST_ISSUER_SECRET_ARN: secret ${arn} has no key material (32+ characters)`);
  return createHash('sha256').update(`${KMS_CONTEXT.purpose}\0${out.SecretString}`).digest();
}

const issuerKey = once(async () => {
  const c = attestConfig;
  if (!c.ATTEST_ISSUER_KEY_CIPHERTEXT && !c.ATTEST_ISSUER_SECRET_ARN && !c.DATA_DIR) {
    throw new Error(
      'invalid configuration: ATTEST_ISSUER_KEY_CIPHERTEXT: the issuer key needs ATTEST_ISSUER_KEY_CIPHERTEXT or ATTEST_ISSUER_SECRET_ARN (AWS) or DATA_DIR (the local key file)',
    );
  }
  const privateKey = c.ATTEST_ISSUER_KEY_CIPHERTEXT
    ? await kmsKey(c.ATTEST_ISSUER_KEY_CIPHERTEXT)
    : c.ATTEST_ISSUER_SECRET_ARN
      ? await secretKey(c.ATTEST_ISSUER_SECRET_ARN)
      : localKey(c.DATA_DIR!);
  const publicKey = await publicKeyOf(privateKey);
  const keyId = createHash('sha256').update(`${publicKey.x}:${publicKey.y}`).digest('hex').slice(0, 32);
  const info: IssuerInfo = { algorithm: 'eddsa-poseidon-babyjubjub', publicKey, keyId };
  return { privateKey, info };
});

export const issuerInfo = async (): Promise<IssuerInfo> => (await issuerKey()).info;

export async function issuerSign(message: bigint): Promise<SignatureData> {
  return signPoseidon((await issuerKey()).privateKey, message);
}

/** Whether `sig` is the issuer's signature of `message`. */
export async function issuerVerify(message: bigint, sig: SignatureData): Promise<boolean> {
  return verifyPoseidon(message, sig, (await issuerKey()).info.publicKey);
}
