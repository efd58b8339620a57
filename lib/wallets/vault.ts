import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';

/**
 * Where the data keys of wallet secrets come from (envelope encryption). Each wallet gets its own
 * 256-bit data key; only its wrapped form is stored, next to the ciphertext.
 *
 * - `KmsVault` (production): `GenerateDataKey` / `Decrypt` of AWS KMS under one key the stack
 *   creates; the plaintext data key never leaves the function's memory.
 * - `LocalVault` (the embedded default): a 256-bit master key in a file under `DATA_DIR`
 *   (`wallet-master.key`, mode 0600) wraps each data key with AES-256-GCM.
 */
export interface DataKey {
  plaintext: Buffer;
  /** The wrapped data key, base64. */
  wrapped: string;
}

export interface KeyVault {
  /** Names the vault in the sealed record (`kms:<key id>` or `local`). */
  readonly id: string;
  generateDataKey(context: Record<string, string>): Promise<DataKey>;
  unwrapDataKey(wrapped: string, context: Record<string, string>): Promise<Buffer>;
}

export class KmsVault implements KeyVault {
  readonly id: string;
  constructor(
    private readonly client: KMSClient,
    private readonly keyId: string,
  ) {
    this.id = `kms:${keyId}`;
  }

  async generateDataKey(context: Record<string, string>): Promise<DataKey> {
    const out = await this.client.send(new GenerateDataKeyCommand({ KeyId: this.keyId, KeySpec: 'AES_256', EncryptionContext: context }));
    if (!out.Plaintext || !out.CiphertextBlob) throw new Error('KMS GenerateDataKey returned no key');
    return { plaintext: Buffer.from(out.Plaintext), wrapped: Buffer.from(out.CiphertextBlob).toString('base64') };
  }

  async unwrapDataKey(wrapped: string, context: Record<string, string>): Promise<Buffer> {
    const out = await this.client.send(new DecryptCommand({ KeyId: this.keyId, CiphertextBlob: Buffer.from(wrapped, 'base64'), EncryptionContext: context }));
    if (!out.Plaintext) throw new Error('KMS Decrypt returned no key');
    return Buffer.from(out.Plaintext);
  }
}

/** The context is bound as associated data, as KMS binds its encryption context. */
const contextAad = (context: Record<string, string>) => Buffer.from(JSON.stringify(Object.entries(context).sort(([a], [b]) => a.localeCompare(b))));

export class LocalVault implements KeyVault {
  readonly id = 'local';
  constructor(private readonly masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error('the local wallet master key must be 32 bytes');
  }

  /** The master key file under `dataDir`, made once (mode 0600). */
  static fromDataDir(dataDir: string): LocalVault {
    const dir = join(dataDir, 'keys');
    const file = join(dir, 'wallet-master.key');
    if (!existsSync(file)) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      try {
        writeFileSync(file, randomBytes(32).toString('base64'), { flag: 'wx', mode: 0o600 });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      chmodSync(file, 0o600);
    }
    return new LocalVault(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64'));
  }

  async generateDataKey(context: Record<string, string>): Promise<DataKey> {
    const plaintext = randomBytes(32);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.masterKey, iv).setAAD(contextAad(context));
    const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return { plaintext, wrapped: Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64') };
  }

  async unwrapDataKey(wrapped: string, context: Record<string, string>): Promise<Buffer> {
    const raw = Buffer.from(wrapped, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.masterKey, raw.subarray(0, 12)).setAAD(contextAad(context));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]);
  }
}
