/**
 * What the command groups of `shroud` share (lib/cli/<group>.ts): usage errors, passwords asked
 * for, whole-coin amounts, the wallet a command acts on.
 */
import { ShroudError, type ShroudClient } from '#lib/client/api.ts';
import type { OptionDef } from './framework.ts';

/** What a command's run gets that these helpers use (framework.ts's CommandContext has it all). */
export interface BaseContext {
  client: ShroudClient;
  io: { askSecret(question: string): Promise<string>; interactive?: boolean };
  args: string[];
  opts: Record<string, string | boolean | undefined>;
}
type CommandContext = BaseContext;

export const usage = (message: string) => new ShroudError('USAGE', 0, message);
export const str = (v: unknown) => (v === undefined ? undefined : String(v));
/** A wallet as the commands that make or show one print it, its name under `label`. */
export const walletFields = (w: { id: string; chain: 'a' | 'b'; name: string; address: string; isActive: boolean }, label = 'wallet'): [string, unknown][] => [
  [label, w.name],
  ['id', w.id],
  ['chain', w.chain],
  ['address', w.address],
  ['active', w.isActive],
];
/** A 202: sent, and the chain has not settled it yet (the service will; the wallet waits for it). */
export const submittedFields = (out: { status: 'submitted'; txHash: string; explorerUrl: string }) => ({
  data: out,
  fields: [
    ['status', 'submitted: not confirmed yet; the wallet sends again once it has landed or expired'],
    ['tx', out.txHash],
    ['explorer', out.explorerUrl],
  ] as [string, string][],
});
export const need = (v: string | undefined, what: string) => {
  if (v === undefined || v === '') throw usage(`${what} is required`);
  return v;
};
export const amountOf = (v: string | undefined) => {
  const n = Number(need(v, 'amount'));
  if (!Number.isFinite(n) || n <= 0) throw usage('amount must be a positive number');
  return n;
};
export const passwordOption: OptionDef = { flags: '-p, --password <password>', description: 'the password (asked for when left out)' };
export const walletOption: OptionDef = {
  flags: '-w, --wallet <wallet>',
  description: 'the wallet, by name or id, on chain A or B (default: the active chain A wallet)',
};

export const secret = async (ctx: CommandContext, flag: string, question: string) => str(ctx.opts[flag]) ?? (await ctx.io.askSecret(question));

/** A new password, typed twice when asked for (an option or piped stdin is taken as given). */
export async function newSecret(ctx: CommandContext, flag: string, what: string): Promise<string> {
  const given = str(ctx.opts[flag]);
  if (given !== undefined) return given;
  const first = await ctx.io.askSecret(`new ${what}: `);
  if (!ctx.io.interactive) return first;
  const again = await ctx.io.askSecret(`new ${what} again: `);
  if (again !== first) throw usage(`the two ${what}s differ: nothing was changed`);
  return first;
}

/** Smallest units → whole coins, exactly ("500000000", 9 → "0.5"); lib/wallets/amounts.ts has the server's twin. */
export function wholeUnits(units: string | bigint, decimals: number): string {
  const s = BigInt(units)
    .toString()
    .padStart(decimals + 1, '0');
  const frac = decimals ? s.slice(s.length - decimals).replace(/0+$/, '') : '';
  return `${s.slice(0, s.length - decimals)}${frac ? `.${frac}` : ''}`;
}
/** Chain A's native coin has 9 decimals (lib/wallets/wallets.ts NATIVE_DECIMALS); chain B's fees are STRK (18). */
export const NATIVE_DECIMALS = 9;
export const STRK_DECIMALS = 18;

export interface WalletRef {
  id: string;
  chain: 'a' | 'b';
  name: string;
  address: string;
}

/** A wallet of either chain given by name or id (a name on both chains: the chain A one, unless `chain` says). */
export async function walletByNameOrId(ctx: CommandContext, given: string, chain?: 'a' | 'b'): Promise<WalletRef> {
  const { wallets } = await ctx.client.api.walletsList({ query: chain ? { chain } : {} });
  const byChain = (list: typeof wallets) => list.find((w) => w.chain === 'a') ?? list[0];
  const found = wallets.find((w) => w.id === given) ?? byChain(wallets.filter((w) => w.name === given));
  if (!found)
    throw new ShroudError(
      'WALLET_NOT_FOUND',
      404,
      `no ${chain ? `chain ${chain.toUpperCase()} ` : ''}wallet named or numbered '${given.slice(0, 40)}': \`shroud wallets\``,
    );
  return { id: found.id, chain: found.chain as 'a' | 'b', name: found.name, address: found.address };
}

/** `--wallet` (either chain), else the active chain A wallet. */
export async function walletOf(ctx: CommandContext): Promise<WalletRef> {
  const given = str(ctx.opts.wallet);
  if (given) return walletByNameOrId(ctx, given);
  const { wallets } = await ctx.client.api.walletsList({ query: { chain: 'a' } });
  const active = wallets.find((w) => w.isActive) ?? wallets[0];
  if (!active) throw new ShroudError('WALLET_NOT_FOUND', 404, 'no chain A wallet: create one with `shroud wallet create <name>`');
  return { id: active.id, chain: 'a', name: active.name, address: active.address };
}
