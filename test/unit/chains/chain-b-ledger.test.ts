import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { constants, hash } from 'starknet';
import { startTable, type TestTable } from '../../support/dynamo-table.ts';

/** The local chain B ledger against DynamoDB Local: mints, balances, transactions. */
let table: TestTable;
let chainb: typeof import('#lib/chains/chain-b/index.ts');
let embeddedLedger: typeof import('#lib/local/chain-b/ledger.ts').localLedger;
let ledgerMod: typeof import('#lib/local/chain-b/ledger.ts');

beforeAll(async () => {
  table = await startTable();
  chainb = await import('#lib/chains/chain-b/index.ts');
  ({ localLedger: embeddedLedger } = await import('#lib/local/chain-b/ledger.ts'));
  ledgerMod = await import('#lib/local/chain-b/ledger.ts');
});
afterAll(async () => {
  await table?.stop();
});

const addr = () => `0x${(BigInt(`0x${crypto.randomUUID().replace(/-/g, '')}`) << 100n).toString(16).padStart(64, '0')}`;
const TRANSFER_KEY = hash.getSelectorFromName('Transfer');

describe('bridgeMint and balanceOf', () => {
  it('credits exactly once per message id and answers the first hash again', async () => {
    const to = addr();
    const token = chainb.ETH.address;
    const amount = 123_456_789_012_345_678_901_234_567_890_123_456_789_012n; // 48 digits: more than a DynamoDB number holds
    const messageId = `0x${'ab'.repeat(32)}-${to}`;
    const first = await chainb.bridgeMint({ token, to, amount, messageId });
    expect(first.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chainb.balanceOf(token, to)).toBe(amount);
    const again = await Promise.all([1, 2, 3].map(() => chainb.bridgeMint({ token, to, amount: amount + 1n, messageId })));
    for (const a of again) expect(a.txHash).toBe(first.txHash);
    expect(await chainb.balanceOf(token, to)).toBe(amount);
    const tx = await embeddedLedger().getTransaction(first.txHash);
    expect(tx).toMatchObject({ type: 'L1_HANDLER', executionStatus: 'SUCCEEDED', messageId });
    expect(tx!.events).toEqual([
      {
        fromAddress: token,
        keys: [TRANSFER_KEY, '0x0', `0x${BigInt(to).toString(16)}`],
        data: [`0x${(amount % 2n ** 128n).toString(16)}`, `0x${(amount / 2n ** 128n).toString(16)}`],
      },
    ]);
  });

  it('parallel mints of distinct messages to one holder all land', async () => {
    const to = addr();
    const token = addr(); // a bridged token at its own address
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        chainb.bridgeMint({ token, to, amount: 10n ** 30n + BigInt(i), messageId: `m-${to}-${i}`, symbol: 'USDC', decimals: 6 }),
      ),
    );
    expect(await chainb.balanceOf(token, to)).toBe(8n * 10n ** 30n + 28n);
    expect(await embeddedLedger().token(token)).toMatchObject({ symbol: 'USDC', decimals: 6 });
  });

  it('total_supply follows the mints exactly: faucet and bridge, parallel, a repeated message counted once', async () => {
    const token = addr(); // a fresh bridged token: its supply starts at 0
    const ledger = embeddedLedger();
    expect(await ledger.totalSupply(token)).toBe(0n);
    const big = 2n ** 200n + 7n; // beyond any DynamoDB number
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        chainb.bridgeMint({ token, to: addr(), amount: big + BigInt(i), messageId: `s-${token}-${i}`, symbol: 'WSOL', decimals: 9 }),
      ),
    );
    await chainb.bridgeMint({ token, to: addr(), amount: 5n, messageId: `s-${token}-0` }); // already minted: nothing
    await ledger.faucetMint(token, addr(), 1n);
    expect(await ledger.totalSupply(token)).toBe(6n * big + 15n + 1n);
  });

  it('refuses what a mint cannot be', async () => {
    await expect(chainb.bridgeMint({ token: chainb.STRK.address, to: '0x0', amount: 1n, messageId: 'x1' })).rejects.toBeInstanceOf(RangeError);
    await expect(chainb.bridgeMint({ token: chainb.STRK.address, to: addr(), amount: 0n, messageId: 'x2' })).rejects.toBeInstanceOf(RangeError);
    expect(ledgerMod.SEQUENCER_ADDRESS).toMatch(/^0x0/);
    expect(constants.StarknetChainId.SN_SEPOLIA).toBeTruthy();
  });
});

describe('accounts, transfers and fees (local adapter → ledger)', () => {
  const accounts = async () => {
    const { ec } = await import('starknet');
    const acc = await import('#lib/chains/chain-b/account.ts');
    const pk = `0x${Buffer.from(ec.starkCurve.utils.randomPrivateKey()).toString('hex')}`;
    return { pk, address: acc.accountAddress(acc.publicKeyOf(pk)) };
  };
  const port = async () => new (await import('#lib/local/chain-b/chain.ts')).LocalChainB(embeddedLedger());
  const fees = async () => import('#lib/chains/chain-b/fees.ts');

  it('the first transfer deploys the account; exact balances both sides; fees charged for both and collected', async () => {
    const chain = await port();
    const { feeOf, LOCAL_GAS_USE } = await fees();
    const a = await accounts();
    const to = addr();
    const STRK = chainb.STRK.address;
    const collectedBefore = await chain.balanceOf(STRK, ledgerMod.SEQUENCER_ADDRESS);
    await chain.faucet(STRK, a.address, 10n ** 18n * 5n);
    expect(await chain.isDeployed(a.address)).toBe(false);
    const out = await chain.transfer({ privateKey: a.pk, token: STRK, to, amount: 1_500_000_000_000_000_001n });
    const expectedFee = feeOf(LOCAL_GAS_USE.deployAccount) + feeOf(LOCAL_GAS_USE.invoke);
    expect(out.fee).toBe(expectedFee);
    expect(out.deployTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chain.isDeployed(a.address)).toBe(true);
    expect(await chain.balanceOf(STRK, to)).toBe(1_500_000_000_000_000_001n);
    expect(await chain.balanceOf(STRK, a.address)).toBe(5n * 10n ** 18n - 1_500_000_000_000_000_001n - expectedFee);
    expect((await chain.balanceOf(STRK, ledgerMod.SEQUENCER_ADDRESS)) - collectedBefore).toBeGreaterThanOrEqual(expectedFee);
    const deploy = await chain.getTransaction(out.deployTxHash!);
    expect(deploy).toMatchObject({ type: 'DEPLOY_ACCOUNT', status: 'SUCCEEDED', nonce: '0x0', sender: a.address });
    const tx = await chain.getTransaction(out.txHash);
    expect(tx).toMatchObject({ type: 'INVOKE', status: 'SUCCEEDED', nonce: '0x1', fee: feeOf(LOCAL_GAS_USE.invoke).toString() });
    expect(tx!.events.map((e) => e.keys[0])).toEqual([TRANSFER_KEY, TRANSFER_KEY].map((k) => `0x${BigInt(k).toString(16)}`));
    // A second transfer: no deployment, next nonce.
    const second = await chain.transfer({ privateKey: a.pk, token: STRK, to, amount: 1n });
    expect(second.deployTxHash).toBeUndefined();
    expect((await chain.getTransaction(second.txHash))!.nonce).toBe('0x2');
  });

  it("past blocks as a node serves them: the nonce after each block, each block's transactions; a block past the head is not found", async () => {
    const chain = await port();
    const a = await accounts();
    const STRK = chainb.STRK.address;
    await chain.faucet(STRK, a.address, 10n ** 18n * 5n);
    const before = await chain.blockNumber();
    const first = await chain.transfer({ privateKey: a.pk, token: STRK, to: addr(), amount: 1n });
    const second = await chain.transfer({ privateKey: a.pk, token: STRK, to: addr(), amount: 1n });
    const at = async (h: string) => (await chain.getTransaction(h))!.blockNumber!;
    const [deployBlock, firstBlock, secondBlock] = [await at(first.deployTxHash!), await at(first.txHash), await at(second.txHash)];
    expect(before < deployBlock && deployBlock < firstBlock && firstBlock < secondBlock).toBe(true);
    expect(await chain.blockNumber()).toBeGreaterThanOrEqual(secondBlock);
    expect(await chain.getNonce(a.address, before)).toBe(0n);
    expect(await chain.getNonce(a.address, deployBlock)).toBe(1n);
    expect(await chain.getNonce(a.address, firstBlock - 1)).toBe(1n);
    expect(await chain.getNonce(a.address, firstBlock)).toBe(2n);
    expect(await chain.getNonce(a.address, secondBlock)).toBe(3n);
    expect(await chain.blockTransactions(firstBlock)).toEqual([{ hash: first.txHash, sender: a.address, nonce: 1n }]);
    expect(await chain.blockTransactions(deployBlock)).toEqual([{ hash: first.deployTxHash }]); // a DEPLOY_ACCOUNT names no sender, as on a node
    expect(await chain.blockTransactions(secondBlock)).toEqual([{ hash: second.txHash, sender: a.address, nonce: 2n }]);
    const past = (await chain.blockNumber()) + 1;
    await expect(chain.getNonce(a.address, past)).rejects.toMatchObject({ name: 'ChainBUnavailable' });
    await expect(chain.blockTransactions(past)).rejects.toMatchObject({ name: 'ChainBUnavailable' });
  });

  it('a transfer that committed just after its status was read is never settled as expired, its past blocks read from a replica not caught up (DynamoDB Query reads are eventually consistent unless asked)', async () => {
    const chain = await port();
    const a = await accounts();
    const STRK = chainb.STRK.address;
    await chain.faucet(STRK, a.address, 10n ** 18n * 5n);
    const sent = await chain.transfer({ privateKey: a.pk, token: STRK, to: addr(), amount: 1n });
    // The settle pass read the status just before the ledger's write committed: NOT_RECEIVED then, what the ledger says after.
    let first = true;
    const racing = {
      getTransactionStatus: async (h: string) => (first ? ((first = false), 'NOT_RECEIVED' as const) : chain.getTransactionStatus(h)),
      getTransaction: (h: string) => chain.getTransaction(h),
      getNonce: (address: string, block?: number) => chain.getNonce(address, block),
      blockNumber: () => chain.blockNumber(),
      blockTransactions: (block: number) => chain.blockTransactions(block),
      resend: () => Promise.reject(new Error('not expected: its nonce is used')),
    } as unknown as typeof chain;
    // A replica that has not yet seen the block's transaction items answers a Query that does not ask for a consistent read.
    const { db } = await import('#lib/data/client.ts');
    const { QueryCommand } = await import('@aws-sdk/lib-dynamodb');
    const send = db.send.bind(db) as (c: unknown) => Promise<unknown>;
    const spy = vi.spyOn(db, 'send').mockImplementation((async (c: unknown) => {
      if (c instanceof QueryCommand && c.input.ConsistentRead !== true && String(c.input.ExpressionAttributeValues?.[':pk']).startsWith('CHAINB#')) {
        return { Items: [] };
      }
      return send(c);
    }) as never);
    try {
      const { settleChainB } = await import('#lib/chains/chain-b/settle.ts');
      expect(await settleChainB(racing, { txHash: sent.txHash, account: a.address, nonce: 1n })).toEqual({ kind: 'landed' });
    } finally {
      spy.mockRestore();
    }
  });

  it("an ERC-20 transfer beyond the balance is included REVERTED with the contract's reason: nonce used, fee charged, nothing moved", async () => {
    const chain = await port();
    const a = await accounts();
    await chain.faucet(chainb.STRK.address, a.address, 10n ** 18n);
    await chain.faucet(chainb.ETH.address, a.address, 10n);
    const err = await chain.transfer({ privateKey: a.pk, token: chainb.ETH.address, to: addr(), amount: 11n }).catch((e) => e);
    expect(err.name).toBe('ChainBReverted');
    expect(err.reason).toBe('ERC20: insufficient balance');
    expect(await chain.balanceOf(chainb.ETH.address, a.address)).toBe(10n);
    const tx = await chain.getTransaction(err.txHash);
    expect(tx).toMatchObject({ status: 'REVERTED', revertReason: 'ERC20: insufficient balance', nonce: '0x1' });
    expect(await chain.ledger.getNonce(a.address)).toBe(2n);
    const zero = await chain.transfer({ privateKey: a.pk, token: chainb.ETH.address, to: '0x0', amount: 1n }).catch((e) => e);
    expect(zero.reason).toBe('ERC20: transfer to 0');
  });

  it('refuses a forged signature, a replayed nonce and a fee the account cannot cover, changing nothing', async () => {
    const chain = await port();
    const { transferCall } = await import('#lib/chains/chain-b/tokens.ts');
    const { boundsFor, LOCAL_GAS_USE } = await fees();
    const a = await accounts();
    const other = await accounts();
    await chain.faucet(chainb.STRK.address, a.address, 10n ** 18n);
    await chain.transfer({ privateKey: a.pk, token: chainb.STRK.address, to: addr(), amount: 1n });
    const before = await chain.balanceOf(chainb.STRK.address, a.address);
    const { Signer, stark, EDataAvailabilityMode } = await import('starknet');
    const calls = [transferCall(chainb.STRK.address, addr(), 5n)];
    const details = (nonce: bigint) => ({
      version: '0x3' as const,
      tip: 0n,
      paymasterData: [],
      accountDeploymentData: [],
      nonceDataAvailabilityMode: EDataAvailabilityMode.L1,
      feeDataAvailabilityMode: EDataAvailabilityMode.L1,
      walletAddress: a.address,
      cairoVersion: '1' as const,
      chainId: chain.ledger.chainId,
      nonce,
      resourceBounds: boundsFor(LOCAL_GAS_USE.invoke),
    });
    const sign = async (pk: string, nonce: bigint) => stark.signatureToHexArray(await new Signer(pk).signTransaction(calls, details(nonce)));
    const send = (signature: string[], nonce: bigint) =>
      chain.ledger.invoke({ senderAddress: a.address, calls, nonce, resourceBounds: boundsFor(LOCAL_GAS_USE.invoke), tip: 0n, signature });
    await expect(send(await sign(other.pk, 2n), 2n)).rejects.toMatchObject({ code: 'VALIDATION_FAILURE', message: 'Account: invalid signature' });
    await expect(send(await sign(a.pk, 1n), 1n)).rejects.toMatchObject({ code: 'INVALID_TRANSACTION_NONCE' });
    // The right signature over other bounds does not verify for these.
    const tampered = await sign(a.pk, 2n);
    await expect(
      chain.ledger.invoke({ senderAddress: a.address, calls, nonce: 2n, resourceBounds: boundsFor(LOCAL_GAS_USE.deployAccount), tip: 0n, signature: tampered }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILURE' });
    expect(await chain.balanceOf(chainb.STRK.address, a.address)).toBe(before);
    expect(await chain.ledger.getNonce(a.address)).toBe(2n);
    const poor = await accounts();
    const refused = await chain.transfer({ privateKey: poor.pk, token: chainb.STRK.address, to: addr(), amount: 1n }).catch((e) => e);
    expect(refused).toMatchObject({ name: 'ChainBRejected', kind: 'FEE_BALANCE' });
    expect(await chain.isDeployed(poor.address)).toBe(false);
  });

  it('parallel transactions of one account: one per nonce, never an overdraft', async () => {
    const chain = await port();
    const { feeOf, LOCAL_GAS_USE } = await fees();
    const a = await accounts();
    const fund = 10n ** 17n;
    await chain.faucet(chainb.STRK.address, a.address, fund);
    await chain.transfer({ privateKey: a.pk, token: chainb.STRK.address, to: addr(), amount: 1n });
    const out = await Promise.allSettled(
      Array.from({ length: 6 }, () => chain.transfer({ privateKey: a.pk, token: chainb.STRK.address, to: addr(), amount: 10n ** 16n })),
    );
    const ok = out.filter((x) => x.status === 'fulfilled') as PromiseFulfilledResult<{ txHash: string }>[];
    for (const x of out) if (x.status === 'rejected') expect((x.reason as { kind?: string }).kind).toBe('NONCE');
    expect(ok.length).toBeGreaterThanOrEqual(1);
    const nonces = await Promise.all(ok.map(async (x) => (await chain.getTransaction(x.value.txHash))!.nonce));
    expect(new Set(nonces).size).toBe(ok.length);
    const spent = 1n + BigInt(ok.length) * 10n ** 16n + feeOf(LOCAL_GAS_USE.deployAccount) + BigInt(ok.length + 1) * feeOf(LOCAL_GAS_USE.invoke);
    expect(await chain.balanceOf(chainb.STRK.address, a.address)).toBe(fund - spent);
    expect(await chain.ledger.getNonce(a.address)).toBe(BigInt(ok.length + 2));
  });
});
