/**
 * Every command of `shroud`, in the order `--help` lists them: one file per group, as functions/
 * is, over the frame in framework.ts. The terminal program (lib/cli/main.ts) and the browser
 * terminal (lib/web/terminal.ts) both read this list.
 */
import type { CommandDef } from './framework.ts';
import { authCommands } from './auth.ts';
import { storageCommands } from './storage.ts';
import { replicaCommands } from './storage-replicas.ts';
import { walletCommands } from './wallets.ts';
import { compressionCommands } from './compression.ts';
import { zkauthCommands } from './zkauth.ts';
import { proofCommands } from './proofs.ts';
import { chainbCommands } from './chainb.ts';
import { bridgeCommands } from './bridge.ts';
import { attestCommands } from './attest.ts';
import { groupCommands } from './groups.ts';
import { swapCommands } from './swap.ts';
import { rewardsCommands } from './rewards.ts';
import { tokenCommands } from './tokens.ts';
import { shieldedCommands } from './shielded.ts';
import { bugCommands } from './bug.ts';
import { aiCommands } from './ai.ts';
import { toolkitCommands } from './toolkit.ts';

export * from './framework.ts';
export { wholeUnits } from './shared.ts';
export { bridgeStepForCli } from './bridge.ts';

export const commands: CommandDef[] = [
  ...authCommands,
  ...storageCommands,
  ...replicaCommands,
  ...walletCommands,
  ...compressionCommands,
  ...zkauthCommands,
  ...proofCommands,
  ...chainbCommands,
  ...bridgeCommands,
  ...attestCommands,
  ...groupCommands,
  ...swapCommands,
  ...rewardsCommands,
  ...tokenCommands,
  ...shieldedCommands,
  ...bugCommands,
  ...aiCommands,
  ...toolkitCommands,
];
