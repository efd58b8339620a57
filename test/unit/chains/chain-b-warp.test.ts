import { addressToBytes32, formatMessage as hlFormatMessage, messageId as hlMessageId } from '@hyperlane-xyz/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ec, hash } from 'starknet';
import { startTable, type TestTable } from '../../support/dynamo-table.ts';

/**
 * The local chain B ledger's warp route: `transfer_remote` burns the synthetic token (balance,
 * total supply, Transfer to 0) and dispatches Hyperlane's message in ONE transaction, with the
 * contracts' revert strings; against DynamoDB Local.
 */
let table: TestTable;
let chainb: typeof import('#lib/chains/chain-b/index.ts');
let embeddedLedger: typeof import('#lib/local/chain-b/ledger.ts').localLedger;
let LocalChainB: typeof import('#lib/local/chain-b/chain.ts').LocalChainB;
let transferRemoteCall: typeof import('#lib/chains/chain-b/warp.ts').transferRemoteCall;
let WARP_EVENT_KEYS: typeof import('#lib/chains/chain-b/warp.ts').WARP_EVENT_KEYS;

beforeAll(async () => {
  table = await startTable();
  chainb = await import('#lib/chains/chain-b/index.ts');
  ({ localLedger: embeddedLedger } = await import('#lib/local/chain-b/ledger.ts'));
  ({ LocalChainB } = await import('#lib/local/chain-b/chain.ts'));
  ({ transferRemoteCall } = await import('#lib/chains/chain-b/warp.ts'));
  ({ WARP_EVENT_KEYS } = await import('#lib/chains/chain-b/warp.ts'));
});
afterAll(async () => table?.stop());

const rand = () => `0x${(BigInt(`0x${crypto.randomUUID().replace(/-/g, '')}`) << 100n).toString(16).padStart(64, '0')}`;
const ORIGIN = 358974494; // the local chain B's domain (starknet)
const REMOTE = 1399811149; // solanamainnet
const REMOTE_ROUTER = `0x${'cd'.repeat(32)}`;
const hex = (x: bigint) => `0x${x.toString(16)}`;

/** A fresh synthetic warp route (router = token), a funded and deployed account holding `held` of it. */
async function setup(held: bigint) {
  const ledger = embeddedLedger();
  const chain = new LocalChainB(ledger);
  const router = rand();
  const mailbox = rand();
  await ledger.enrollWarpRoute(router, { token: router, mailbox, localDomain: ORIGIN, routers: { [REMOTE]: REMOTE_ROUTER } });
  const pk = `0x${Buffer.from(ec.starkCurve.utils.randomPrivateKey()).toString('hex')}`;
  const { accountAddress, publicKeyOf } = await import('#lib/chains/chain-b/account.ts');
  const address = accountAddress(publicKeyOf(pk));
  await chain.faucet(chainb.STRK.address, address, 10n ** 18n);
  await ledger.bridgeMint({ token: router, to: address, amount: held, messageId: `m-${router}`, symbol: 'SOL', decimals: 9 });
  await chain.transfer({ privateKey: pk, token: chainb.STRK.address, to: rand(), amount: 1n }); // deploys the account
  return { ledger, chain, router, mailbox, pk, address };
}

describe('transfer_remote on a synthetic warp route', () => {
  it("burns from the caller, lowers total_supply, dispatches the message with Hyperlane's id, all in one transaction", async () => {
    const { ledger, chain, router, mailbox, pk, address } = await setup(5_000_000_000n);
    const recipient = BigInt(`0x${'11'.repeat(32)}`);
    expect(await ledger.totalSupply(router)).toBe(5_000_000_000n);
    const out = await chain.execute({ privateKey: pk, calls: [transferRemoteCall(router, REMOTE, recipient, 1_250_000_001n)] });
    expect(await chain.balanceOf(router, address)).toBe(3_749_999_999n);
    expect(await ledger.totalSupply(router)).toBe(3_749_999_999n);
    expect(await ledger.mailboxNonce(mailbox)).toBe(1);

    const tx = (await chain.getTransaction(out.txHash))!;
    expect(tx).toMatchObject({ status: 'SUCCEEDED', type: 'INVOKE', sender: address });
    const [burn, dispatch, dispatchId, sent] = tx.events;
    expect(burn).toEqual({
      fromAddress: router,
      keys: [hex(BigInt(hash.getSelectorFromName('Transfer'))), hex(BigInt(address)), '0x0'],
      data: [hex(1_250_000_001n), '0x0'],
    });
    expect(dispatch!.fromAddress).toBe(mailbox);
    expect(dispatch!.keys.slice(0, 3)).toEqual([WARP_EVENT_KEYS.dispatch, hex(BigInt(router)), hex(BigInt(REMOTE))]);
    expect(dispatch!.data).toEqual(['0x3', '0x0', hex(BigInt(ORIGIN))]);
    expect(sent).toEqual({
      fromAddress: router,
      keys: [WARP_EVENT_KEYS.sentTransferRemote, hex(BigInt(REMOTE)), '0x11111111111111111111111111111111', '0x11111111111111111111111111111111'],
      data: [hex(1_250_000_001n), '0x0'],
    });
    // The id is the one @hyperlane-xyz/utils computes for this message.
    const body = `0x${'11'.repeat(32)}${1_250_000_001n.toString(16).padStart(64, '0')}`;
    const expected = hlMessageId(hlFormatMessage(3, 0, ORIGIN, addressToBytes32(router), REMOTE, REMOTE_ROUTER, body));
    expect(dispatchId!.keys[0]).toBe(WARP_EVENT_KEYS.dispatchId);
    expect(BigInt(dispatchId!.keys[1]!) + (BigInt(dispatchId!.keys[2]!) << 128n)).toBe(BigInt(expected));
    // The next dispatch takes the next nonce.
    await chain.execute({ privateKey: pk, calls: [transferRemoteCall(router, REMOTE, recipient, 1n)] });
    expect(await ledger.mailboxNonce(mailbox)).toBe(2);
  });

  it('beyond the balance: included REVERTED with "ERC20: insufficient balance", nothing burned, no nonce dispatched', async () => {
    const { ledger, chain, router, mailbox, pk, address } = await setup(10n);
    const err = await chain.execute({ privateKey: pk, calls: [transferRemoteCall(router, REMOTE, 7n, 11n)] }).catch((e) => e);
    expect(err).toMatchObject({ name: 'ChainBReverted', reason: 'ERC20: insufficient balance' });
    expect(await chain.balanceOf(router, address)).toBe(10n);
    expect(await ledger.totalSupply(router)).toBe(10n);
    expect(await ledger.mailboxNonce(mailbox)).toBe(0);
    expect(await chain.getTransaction(err.txHash)).toMatchObject({ status: 'REVERTED', revertReason: 'ERC20: insufficient balance' });
  });

  it('a domain with no enrolled router reverts after the burn is undone; malformed calldata is refused by deserialisation', async () => {
    const { ledger, chain, router, pk, address } = await setup(10n);
    const err = await chain.execute({ privateKey: pk, calls: [transferRemoteCall(router, 1, 7n, 3n)] }).catch((e) => e);
    expect(err.reason).toBe('No router enrolled for domain 1');
    expect(await chain.balanceOf(router, address)).toBe(10n);
    expect(await ledger.totalSupply(router)).toBe(10n);
    const bad = transferRemoteCall(router, REMOTE, 7n, 3n);
    const short = await chain.execute({ privateKey: pk, calls: [{ ...bad, calldata: (bad.calldata as string[]).slice(0, 5) }] }).catch((e) => e);
    expect(short.reason).toMatch(/^Failed to deserialize param #4$/);
  });

  it('parallel burns from two holders of one token: exact balances and total supply', async () => {
    const a = await setup(1_000n);
    const { chain, router, ledger } = a;
    // A second holder of the same token.
    const pk = `0x${Buffer.from(ec.starkCurve.utils.randomPrivateKey()).toString('hex')}`;
    const { accountAddress, publicKeyOf } = await import('#lib/chains/chain-b/account.ts');
    const b = accountAddress(publicKeyOf(pk));
    await chain.faucet(chainb.STRK.address, b, 10n ** 18n);
    await ledger.bridgeMint({ token: router, to: b, amount: 500n, messageId: `m2-${router}` });
    await Promise.all([
      chain.execute({ privateKey: a.pk, calls: [transferRemoteCall(router, REMOTE, 1n, 300n)] }),
      chain.execute({ privateKey: pk, calls: [transferRemoteCall(router, REMOTE, 2n, 200n)] }),
    ]);
    expect(await chain.balanceOf(router, a.address)).toBe(700n);
    expect(await chain.balanceOf(router, b)).toBe(300n);
    expect(await ledger.totalSupply(router)).toBe(1_000n);
    expect(await ledger.mailboxNonce(a.mailbox)).toBe(2);
  });
});
