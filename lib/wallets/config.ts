import { KMSClient } from '@aws-sdk/client-kms';
import * as z from 'zod';
import { readConfig } from '#lib/config.ts';
import { KmsVault, LocalVault, type KeyVault } from './vault.ts';

/**
 * Wallet custody settings, read once at cold start.
 * - `WALLET_KMS_KEY_ID`: the KMS key (id, ARN or alias) that wraps wallet data keys. Set on AWS
 *   (the stack creates the key and grants `kms:GenerateDataKey`/`kms:Decrypt` only to the
 *   functions that create wallets or sign).
 * - otherwise `DATA_DIR`: the local master key file `DATA_DIR/keys/wallet-master.key`.
 * - `WALLET_LOCK_SECONDS`: the signing lease (default 60; longer than any signing request).
 */
const schema = z
  .object({
    WALLET_KMS_KEY_ID: z.string().min(1).optional(),
    DATA_DIR: z.string().optional(),
    AWS_REGION: z.string().default('us-east-1'),
    KMS_ENDPOINT: z.url().optional(),
    WALLET_LOCK_SECONDS: z.coerce.number().int().min(5).max(900).default(60),
  })
  .superRefine((c, ctx) => {
    if (!c.WALLET_KMS_KEY_ID && !c.DATA_DIR) {
      ctx.addIssue({ code: 'custom', path: ['WALLET_KMS_KEY_ID'], message: 'wallet keys need WALLET_KMS_KEY_ID (AWS) or DATA_DIR (the local key file)' });
    }
  });

export type WalletConfig = z.infer<typeof schema>;

export const readWalletConfig = (env: NodeJS.ProcessEnv = process.env): WalletConfig => readConfig(schema, env);

export const walletConfig: WalletConfig = readWalletConfig();

let vault: KeyVault | undefined;

/** The vault of this process (built once). */
export function keyVault(): KeyVault {
  if (vault) return vault;
  const c = walletConfig;
  vault = c.WALLET_KMS_KEY_ID
    ? new KmsVault(new KMSClient({ region: c.AWS_REGION, ...(c.KMS_ENDPOINT ? { endpoint: c.KMS_ENDPOINT } : {}) }), c.WALLET_KMS_KEY_ID)
    : LocalVault.fromDataDir(c.DATA_DIR!);
  return vault;
}
