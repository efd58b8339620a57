import { KMSClient } from '@aws-sdk/client-kms';
import * as z from 'zod';
import { readConfig } from '#lib/config.ts';

/**
 * Attestation settings, read once at cold start.
 * - `ATTEST_ISSUER_KEY_CIPHERTEXT` (AWS): the issuer's 32-byte EdDSA private key encrypted with
 *   KMS (base64 CiphertextBlob, encryption context `purpose=shroud-attest-issuer`); decrypted
 *   once per cold start. The stack passes it from `-c attestIssuerKeyCiphertext=…` and grants
 *   `kms:Decrypt` on the attest key to the attest functions only.
 * - `ATTEST_ISSUER_SECRET_ARN` (AWS, the stack's default): a secret CloudFormation generated under
 *   the attest key (cdk/attest-issuer.ts), read once per cold start; the key is derived from it.
 * - otherwise `DATA_DIR`: the local key file `DATA_DIR/keys/attest-issuer.key` (0600), made once.
 * - `ATTEST_VALIDITY_DAYS`: how long an attestation is valid (default 365).
 * - `ATTEST_ROOT_HISTORY`: how many of a group's latest roots a membership proof may use (default 30).
 * No key source set: the routes that need the key (issuing, verify, issuer) fail on their first
 * use with a message naming both variables; the others (schemas, groups, lists) work without it.
 */
const schema = z.object({
  ATTEST_ISSUER_KEY_CIPHERTEXT: z.string().min(1).optional(),
  ATTEST_ISSUER_SECRET_ARN: z
    .string()
    .regex(/^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:.+$/, 'a Secrets Manager secret ARN')
    .optional(),
  DATA_DIR: z.string().optional(),
  AWS_REGION: z.string().default('us-east-1'),
  KMS_ENDPOINT: z.url().optional(),
  ATTEST_VALIDITY_DAYS: z.coerce.number().int().min(1).max(3650).default(365),
  ATTEST_ROOT_HISTORY: z.coerce.number().int().min(1).max(1000).default(30),
});

export type AttestConfig = z.infer<typeof schema>;

export const readAttestConfig = (env: NodeJS.ProcessEnv = process.env): AttestConfig => readConfig(schema, env);

export const attestConfig: AttestConfig = readAttestConfig();

export const kmsClient = (): KMSClient =>
  new KMSClient({ region: attestConfig.AWS_REGION, ...(attestConfig.KMS_ENDPOINT ? { endpoint: attestConfig.KMS_ENDPOINT } : {}) });
