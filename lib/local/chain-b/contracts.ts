import { toHex, toHex64 } from '#lib/chains/chain-b/felts.ts';
import { formatMessage, MESSAGE_VERSION, messageId, tokenMessage } from '#lib/chains/chain-b/hyperlane-message.ts';
import { transferEvent, U256_MAX, u256Felts, u256FromFelts, type TokenInfo } from '#lib/chains/chain-b/tokens.ts';
import { WARP_EVENT_KEYS } from '#lib/chains/chain-b/warp.ts';
import type { LedgerEvent } from './ledger-table.ts';
import { readBalance, readMailboxNonce, readSupplyShards, readWarpRoute, type BalanceWrite, type LedgerWarpRoute, type SupplyWrite } from './state-table.ts';

/**
 * What the embedded chain B's contracts do inside one transaction (ledger.ts runs them): the
 * working state a transaction reads and changes, the ERC-20 `transfer` and the synthetic warp
 * route's `transfer_remote` with their panic strings, and the total-supply shards a burn takes.
 */
/** Balances read and changed while executing one transaction (the ERC-20s' storage). */
export class Working {
  readonly #read = new Map<string, bigint>();
  readonly #now = new Map<string, bigint>();
  readonly events: LedgerEvent[] = [];
  /** Net change of each token's total supply (burns). */
  readonly supply = new Map<string, bigint>();
  /** The Mailbox nonce read and the one after this transaction's dispatches. */
  mailbox: { mailbox: string; before: number; next: number } | undefined;

  async balance(token: string, holder: string): Promise<bigint> {
    const k = `${token}|${holder}`;
    if (!this.#now.has(k)) {
      const b = await readBalance(holder, token);
      this.#read.set(k, b);
      this.#now.set(k, b);
    }
    return this.#now.get(k)!;
  }

  set(token: string, holder: string, value: bigint): void {
    this.#now.set(`${token}|${holder}`, value);
  }

  /** The Mailbox's next nonce, taken (read once per transaction, then counted here). */
  async takeMailboxNonce(mailbox: string): Promise<number> {
    if (this.mailbox && this.mailbox.mailbox !== mailbox) throw new Revert('one Mailbox per transaction on the local ledger');
    if (!this.mailbox) {
      const before = await readMailboxNonce(mailbox);
      this.mailbox = { mailbox, before, next: before };
    }
    return this.mailbox.next++;
  }

  /** A checkpoint to revert to. */
  snapshot() {
    return { now: new Map(this.#now), events: this.events.length, supply: new Map(this.supply), mailboxNext: this.mailbox?.next };
  }

  restore(s: ReturnType<Working['snapshot']>): void {
    this.#now.clear();
    for (const [k, v] of s.now) this.#now.set(k, v);
    this.events.length = s.events;
    this.supply.clear();
    for (const [k, v] of s.supply) this.supply.set(k, v);
    // Nonces taken after the checkpoint are given back (a read before it stays the condition).
    if (this.mailbox) this.mailbox.next = s.mailboxNext ?? this.mailbox.before;
  }

  writes(): BalanceWrite[] {
    const out: BalanceWrite[] = [];
    for (const [k, after] of this.#now) {
      const before = this.#read.get(k)!;
      if (after === before) continue;
      const [token, holder] = k.split('|') as [string, string];
      out.push({ token, holder, before, after });
    }
    return out;
  }
}

/** A panic in execution: the transaction is included REVERTED with this reason. */
export class Revert extends Error {}

/** The contracts' panic strings (erc20.cairo; checked against it by the Cairo tests). */
export const ERC20_REVERTS = {
  insufficientBalance: 'ERC20: insufficient balance',
  transferToZero: 'ERC20: transfer to 0',
  overflow: 'u256_add Overflow',
} as const;

/** The account's panic strings (account.cairo; checked against it by the Cairo tests). */
export const ACCOUNT_REVERTS = {
  invalidSignature: 'Account: invalid signature',
  invalidCaller: 'Account: invalid caller',
} as const;

/** Hyperlane's warp route (hyperlane-starknet TokenRouterComponent, HypErc20 synthetic): its panics. */
export const WARP_REVERTS = {
  noRouter: (domain: number | bigint) => `No router enrolled for domain ${domain}`,
} as const;

const TRANSFER = 'transfer';
const TRANSFER_REMOTE = 'transfer_remote';
const U32 = 1n << 32n;
const U128_LIMIT = 1n << 128n;
const feltBytes32 = (x: bigint) => Uint8Array.from(Buffer.from(x.toString(16).padStart(64, '0'), 'hex'));

/** One call of `__execute__` on the working state; throws Revert with the contract's panic string. */
export async function executeCall(
  w: Working,
  caller: string,
  call: { contractAddress: string; entrypoint: string; calldata: string[] },
  tokenOf: (address: string) => Promise<TokenInfo | undefined>,
): Promise<void> {
  if (call.entrypoint === TRANSFER_REMOTE) {
    const warp = await readWarpRoute(call.contractAddress);
    if (warp) return transferRemote(w, caller, call.contractAddress, warp, call.calldata);
  }
  const token = await tokenOf(call.contractAddress);
  if (!token) throw new Revert(`Requested contract address ${call.contractAddress} is not deployed.`);
  if (call.entrypoint !== TRANSFER) throw new Revert('ENTRYPOINT_NOT_FOUND');
  if (call.calldata.length !== 3) throw new Revert('Failed to deserialize param #1');
  const [recipient, low, high] = call.calldata.map((x) => BigInt(x)) as [bigint, bigint, bigint];
  if (low >= 1n << 128n || high >= 1n << 128n) throw new Revert('Failed to deserialize param #2');
  const amount = u256FromFelts(low, high);
  // OpenZeppelin ERC20._update, in its order.
  if (recipient === 0n) throw new Revert(ERC20_REVERTS.transferToZero);
  const to = toHex64(recipient);
  const fromBalance = await w.balance(token.address, caller);
  if (fromBalance < amount) throw new Revert(ERC20_REVERTS.insufficientBalance);
  w.set(token.address, caller, fromBalance - amount);
  const toBalance = await w.balance(token.address, to);
  if (toBalance + amount > U256_MAX) throw new Revert(ERC20_REVERTS.overflow);
  w.set(token.address, to, toBalance + amount);
  w.events.push(transferEvent(token.address, caller, to, amount));
}

/**
 * A synthetic warp route's `transfer_remote(destination: u32, recipient: u256, amount_or_id:
 * u256, value: u256, hook_metadata: Option<Bytes>, hook: Option<ContractAddress>) -> u256`, in
 * the contract's order: the synthetic token is burned from the caller (OpenZeppelin
 * ERC20._update to 0: 'ERC20: insufficient balance', total_supply decreased, Transfer to 0),
 * the remote router looked up ('No router enrolled for domain <d>'), the Mailbox dispatches the
 * version-3 message with its next nonce (Dispatch, DispatchId = keccak256 of the message), and
 * the route emits SentTransferRemote {#[key] destination, #[key] recipient, amount}. The local
 * chain has no interchain gas paymaster: `value` is accepted and nothing is charged for it;
 * only the default hook (hook_metadata None) exists.
 */
async function transferRemote(w: Working, caller: string, router: string, warp: LedgerWarpRoute, calldata: string[]): Promise<void> {
  const d = calldata.map((x) => BigInt(x));
  const u256At = (i: number, param: number) => {
    if (d[i] === undefined || d[i + 1] === undefined || d[i]! >= U128_LIMIT || d[i + 1]! >= U128_LIMIT)
      throw new Revert(`Failed to deserialize param #${param}`);
    return u256FromFelts(d[i]!, d[i + 1]!);
  };
  const destination = d[0];
  if (destination === undefined || destination >= U32) throw new Revert('Failed to deserialize param #1');
  const recipient = u256At(1, 2);
  const amount = u256At(3, 3);
  u256At(5, 4); // value: the hook's fee allowance (no paymaster locally)
  if (d[7] !== 1n) throw new Revert(d[7] === 0n ? 'shroud local ledger: only the default hook (hook_metadata None) exists' : 'Failed to deserialize param #5');
  let end = 9;
  if (d[8] === 0n)
    end = 10; // Some(hook): ignored with hook_metadata None, as the contract does
  else if (d[8] !== 1n) throw new Revert('Failed to deserialize param #6');
  if (d.length > end) throw new Revert('Input too long for arguments');
  if (d.length < end) throw new Revert('Failed to deserialize param #6');

  // _transfer_from_sender: HypErc20 burns the amount from the caller.
  const token = toHex64(warp.token);
  const balance = await w.balance(token, caller);
  if (balance < amount) throw new Revert(ERC20_REVERTS.insufficientBalance);
  w.set(token, caller, balance - amount);
  w.supply.set(token, (w.supply.get(token) ?? 0n) - amount);
  w.events.push(transferEvent(token, caller, '0x0', amount));
  // _Router_dispatch → Mailbox.dispatch.
  const remote = warp.routers[destination.toString()];
  if (!remote) throw new Revert(WARP_REVERTS.noRouter(destination));
  const nonce = await w.takeMailboxNonce(warp.mailbox);
  const message = formatMessage({
    nonce,
    originDomain: warp.localDomain,
    sender: feltBytes32(BigInt(router)),
    destinationDomain: Number(destination),
    recipient: Uint8Array.from(Buffer.from(remote.slice(2), 'hex')),
    body: tokenMessage(feltBytes32(recipient), amount),
  });
  const id = BigInt(messageId(message));
  const mailbox = toHex64(warp.mailbox);
  w.events.push({
    fromAddress: mailbox,
    keys: [WARP_EVENT_KEYS.dispatch, toHex(router), toHex(destination), ...u256Felts(BigInt(remote))],
    data: [toHex(MESSAGE_VERSION), toHex(nonce), toHex(warp.localDomain)],
  });
  w.events.push({ fromAddress: mailbox, keys: [WARP_EVENT_KEYS.dispatchId, ...u256Felts(id)], data: [] });
  w.events.push({
    fromAddress: toHex64(router),
    keys: [WARP_EVENT_KEYS.sentTransferRemote, toHex(destination), ...u256Felts(recipient)],
    data: u256Felts(amount),
  });
}

/** The total-supply shards a burn takes from, largest first, each conditioned on the value read. */
export async function burnWrites(supply: Map<string, bigint>): Promise<SupplyWrite[]> {
  const out: SupplyWrite[] = [];
  for (const [token, delta] of supply) {
    let need = -delta;
    if (need <= 0n) continue;
    const shards = (await readSupplyShards(token)).sort((a, b) => (a.supply < b.supply ? 1 : a.supply > b.supply ? -1 : 0));
    for (const s of shards) {
      if (need === 0n) break;
      const take = s.supply < need ? s.supply : need;
      if (take === 0n) continue;
      out.push({ token, shard: s.shard, before: s.supply, after: s.supply - take });
      need -= take;
    }
    // The supply is the sum of the balances: a burn the balance allowed always finds it.
    if (need > 0n) throw new Error(`chain B ledger: the total supply of ${token} is below a burn`);
  }
  return out;
}
