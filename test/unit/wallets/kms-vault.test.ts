import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KMSClient } from '@aws-sdk/client-kms';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openKey, sealKey } from '#lib/wallets/custody.ts';
import { KmsVault } from '#lib/wallets/vault.ts';

/**
 * The KMS vault speaks AWS KMS's JSON protocol (TrentService) through @aws-sdk/client-kms. Here
 * it talks to a loopback endpoint that answers GenerateDataKey and Decrypt the way KMS does —
 * the data key wrapped under a key only the endpoint holds, bound to the encryption context —
 * so the test sees the exact requests and that the context really binds.
 */
const masterKey = randomBytes(32);
const requests: { target: string; body: Record<string, unknown> }[] = [];
let server: Server;
let client: KMSClient;

const ctxAad = (ctx: unknown) => Buffer.from(JSON.stringify(Object.entries((ctx ?? {}) as object).sort()));

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target']);
      const body = JSON.parse(raw) as Record<string, unknown>;
      requests.push({ target, body });
      const send = (status: number, json: unknown) => res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(json));
      if (target === 'TrentService.GenerateDataKey') {
        const plaintext = randomBytes(32);
        const iv = randomBytes(12);
        const c = createCipheriv('aes-256-gcm', masterKey, iv).setAAD(ctxAad(body.EncryptionContext));
        const ct = Buffer.concat([c.update(plaintext), c.final()]);
        return send(200, {
          KeyId: body.KeyId,
          Plaintext: plaintext.toString('base64'),
          CiphertextBlob: Buffer.concat([iv, c.getAuthTag(), ct]).toString('base64'),
        });
      }
      if (target === 'TrentService.Decrypt') {
        const blob = Buffer.from(String(body.CiphertextBlob), 'base64');
        try {
          const d = createDecipheriv('aes-256-gcm', masterKey, blob.subarray(0, 12)).setAAD(ctxAad(body.EncryptionContext));
          d.setAuthTag(blob.subarray(12, 28));
          const plaintext = Buffer.concat([d.update(blob.subarray(28)), d.final()]);
          return send(200, { KeyId: body.KeyId, Plaintext: plaintext.toString('base64'), EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' });
        } catch {
          return send(400, { __type: 'InvalidCiphertextException', message: 'invalid ciphertext' });
        }
      }
      send(400, { __type: 'UnknownOperationException' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  client = new KMSClient({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
});
afterAll(async () => {
  client?.destroy();
  await new Promise((r) => server?.close(r));
});

describe('KMS vault', () => {
  it('seals with GenerateDataKey (AES_256, context = wallet id and address) and opens with Decrypt', async () => {
    const vault = new KmsVault(client, 'alias/shroud-wallets');
    const secret = randomBytes(64);
    const sealed = await sealKey(vault, 'w-1', 'Addr1', secret);
    expect(sealed.vault).toBe('kms:alias/shroud-wallets');
    expect(requests.at(-1)).toEqual({
      target: 'TrentService.GenerateDataKey',
      body: { KeyId: 'alias/shroud-wallets', KeySpec: 'AES_256', EncryptionContext: { walletId: 'w-1', address: 'Addr1' } },
    });
    expect(await openKey(vault, 'w-1', 'Addr1', sealed)).toEqual(secret);
    expect(requests.at(-1)).toMatchObject({
      target: 'TrentService.Decrypt',
      body: { KeyId: 'alias/shroud-wallets', EncryptionContext: { walletId: 'w-1', address: 'Addr1' } },
    });
    // moved to another wallet: KMS itself refuses the data key (its context no longer matches)
    await expect(openKey(vault, 'w-2', 'Addr1', sealed)).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
  });
});
