import { Annotations } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

/**
 * The rehearsal stage: `cdk synth -c rehearsal=true` (CI's synth, `npm run start:assets`'s own)
 * is a stage as a deploy would have it — chain A named by an RPC URL — whose outside services are
 * placeholders on hosts under `.invalid`, which the asset mode (cdk/asset-mode.ts) points at its
 * loopback stand-ins: chain A's JSON-RPC front over the embedded chain
 * (lib/local/chain-a/json-rpc.ts). The context given on the command line wins over these.
 */
export const REHEARSAL_HOSTS = {
  chainA: 'chain-a.rehearsal.invalid',
} as const;

export const REHEARSAL_CONTEXT = {
  functionEnvironment: { CHAIN_A_NETWORK: 'localnet', CHAIN_A_RPC_URL: `http://${REHEARSAL_HOSTS.chainA}` },
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
