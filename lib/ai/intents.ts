import type { Intent } from './intent-types.ts';
import { accountIntents, historyIntents, identityIntents } from './intents/account.ts';
import { fileIntents } from './intents/files.ts';
import { toolkitIntents } from './intents/toolkit.ts';
import { valueIntents } from './intents/value.ts';
import { tokenIntents, walletIntents } from './intents/wallets.ts';
import { isSafeName, parseSlots } from './slots.ts';

/**
 * The common tasks, recognised in a message and answered with the command to run — the `shroud`
 * command where the terminal program has one, else curl against the API — filled in with the
 * user's values (amounts, names, ids) and, where a task needs one of the caller's own resources,
 * the one found by a read-only tool (a wallet by name, a file by name). Commands are only ever
 * suggestions: the service runs none of them. Secrets are never in a command: `shroud` asks.
 */
export type * from './intent-types.ts';
export { curl } from './intent-helpers.ts';

/** Every task, ordered from specific to general (the first match wins); each group's tasks live in lib/ai/intents/. */
export const intents: Intent[] = [
  ...accountIntents,
  ...fileIntents,
  ...walletIntents,
  ...valueIntents,
  ...tokenIntents,
  ...identityIntents,
  ...toolkitIntents,
  ...historyIntents,
];

export const intentById = (id: string): Intent | undefined => intents.find((i) => i.id === id);

/** The first task whose pattern the message matches (the list is ordered from specific to general). */
export function matchIntent(message: string): Intent | undefined {
  return intents.find((i) => i.test.test(message) && !(i.unless?.test(message) ?? false));
}

export { parseSlots, isSafeName };
