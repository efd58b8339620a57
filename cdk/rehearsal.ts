import { Annotations } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

/**
 * The rehearsal stage: `cdk synth -c rehearsal=true` (CI's synth, `npm run start:assets`'s own)
 * is a stage as a deploy would have it — chain A named by an RPC URL — whose outside services are
 * placeholders on hosts under `.invalid`, which the asset mode (cdk/asset-mode.ts) points at its
 * loopback stand-ins: chain A's JSON-RPC front over the embedded chain
 * (lib/local/chain-a/json-rpc.ts), a loopback Pinata (lib/local/pinata.ts) and the local S3 as
 * the replica targets' services, and Moto for the targets' secrets, named by ARN as on AWS. The
 * context given on the command line wins over these.
 */
export const REHEARSAL_HOSTS = {
  chainA: 'chain-a.rehearsal.invalid',
  pinata: 'pinata.rehearsal.invalid',
  s3: 's3.rehearsal.invalid',
} as const;

const secretArn = (name: string) => `arn:aws:secretsmanager:us-east-1:000000000000:secret:${name}`;
/** The replica targets' secrets (partial ARNs: the asset mode makes them on Moto under these names). */
export const REHEARSAL_SECRETS = { pinataJwt: 'shroud-rehearsal-pinata-jwt', s3Keys: 'shroud-rehearsal-replica-keys' } as const;
/** The replica targets' buckets on the local S3. */
export const REHEARSAL_BUCKETS = ['shroud-rehearsal-replica-1', 'shroud-rehearsal-replica-2'] as const;

export const REHEARSAL_CONTEXT = {
  functionEnvironment: { CHAIN_A_NETWORK: 'localnet', CHAIN_A_RPC_URL: `http://${REHEARSAL_HOSTS.chainA}` },
  // Replicated pinning needs three targets (lib/storage/replicas.ts): a Pinata account and two S3-compatible ones.
  replicaTargets: [
    {
      type: 'pinata',
      name: 'pinata',
      gateway: `http://${REHEARSAL_HOSTS.pinata}`,
      apiUrl: `http://${REHEARSAL_HOSTS.pinata}/v3`,
      uploadUrl: `http://${REHEARSAL_HOSTS.pinata}/v3`,
      jwt: { secretArn: secretArn(REHEARSAL_SECRETS.pinataJwt) },
    },
    ...REHEARSAL_BUCKETS.map((bucket, i) => ({
      name: `s3-${i + 1}`,
      endpoint: `http://${REHEARSAL_HOSTS.s3}`,
      bucket,
      region: 'us-east-1',
      credentials: { secretArn: secretArn(REHEARSAL_SECRETS.s3Keys) },
    })),
  ],
};

/** Sets the rehearsal's context on `app` when `-c rehearsal=true` asks for it (before any stack is made). */
export function applyRehearsal(app: Construct): void {
  if (!['true', true].includes(app.node.tryGetContext('rehearsal') as string | boolean)) return;
  for (const [k, v] of Object.entries(REHEARSAL_CONTEXT)) if (app.node.tryGetContext(k) === undefined) app.node.setContext(k, v);
}

/**
 * A stage's settings that only a synth can refuse: the functions cannot carry the embedded chain
 * A (LiteSVM is native and left out of every bundle), so a stage must name chain A's RPC. An error
 * annotation: `cdk synth` and `cdk deploy` stop on it; the stack's own tests still build it.
 */
export function checkStageEnvironment(scope: Construct, environment: Record<string, string>): void {
  if (environment.CHAIN_A_RPC_URL) return;
  Annotations.of(scope).addError(
    'chain A: a deployed stage needs CHAIN_A_RPC_URL (and CHAIN_A_NETWORK) in -c functionEnvironment: the embedded chain is in no Lambda bundle. `-c rehearsal=true` synthesizes the local rehearsal stage (npm run start:assets).',
  );
}
