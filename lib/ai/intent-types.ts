import type { Slots } from './slots.ts';

/** What an intent is and what it answers with (lib/ai/intents.ts). */
export interface Suggestion {
  command: string;
  description: string;
}

export interface WalletFact {
  id: string;
  chain: 'a' | 'b';
  name: string;
  address: string;
  isActive: boolean;
}
export interface FileFact {
  id: string;
  filename: string;
  size: number;
  createdAt: string;
}
export interface BridgeFact {
  id: string;
  token: string;
  amount: string;
  status: string;
  sourceTxHash: string | null;
  destTxHash: string | null;
  createdAt: string;
  updatedAt: string;
}
export interface ShareLinkFact {
  id: string;
  fileId: string;
  filename: string | null;
  createdAt: string;
  expiresAt: string;
  status: 'active' | 'expired' | 'revoked';
  accessCount: number;
}
export type Need = 'wallets' | 'balances' | 'files' | 'proofs' | 'bridges' | 'shares';

/** A wallet's balances as the wallet_balances tool reads them (whole coins), or the error that stopped it. */
export interface BalanceFact {
  id: string;
  chain: 'a' | 'b';
  name: string;
  symbol: string;
  balance?: string;
  compressed?: string;
  error?: string;
}
export interface ProofFact {
  type?: string;
  createdAt?: string;
}

export interface IntentContext {
  baseUrl: string;
  hasRoute(method: string, path: string): boolean;
  wallets?: WalletFact[];
  files?: FileFact[];
  /** The caller's bridge transfers, newest first. */
  bridges?: BridgeFact[];
  /** The caller's share links, newest first. */
  shares?: ShareLinkFact[];
  balances?: BalanceFact[];
  proofs?: ProofFact[];
  message: string;
}

export interface IntentAnswer {
  /** One or two sentences that open the answer. */
  lead: string;
  suggestions: Suggestion[];
}

export interface Intent {
  id: string;
  test: RegExp;
  unless?: RegExp;
  /** The caller's resources this task needs (read through the tools, scoped by the service). */
  needs?: Need[];
  /** The answer is the caller's own records (the values): the documentation adds prose, never route rows. */
  reports?: true;
  /** Extra search terms, so the cited passages are the task's own. */
  terms: string;
  /** The documentation section that documents the task (`docs/<page>.md#<anchor>`): cited first when the page has it. */
  doc?: string;
  /** The route the command calls; when the deployment has no such route the task is reported unavailable. */
  route?: [string, string];
  build(slots: Slots, ctx: IntentContext): IntentAnswer;
}
