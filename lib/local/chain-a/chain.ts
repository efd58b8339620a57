import { join } from 'node:path';
import { buildAndSignTx, LightSystemProgram, type Rpc } from '@lightprotocol/stateless.js';
import { ACCOUNT_SIZE, AccountLayout, AccountState, getAssociatedTokenAddressSync, MINT_SIZE, MintLayout, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { Keypair, PublicKey, VersionedTransaction, type AccountInfo } from '@solana/web3.js';
import bs58 from 'bs58';
import type { LiteSVM } from 'litesvm';
import { LiteSvmRpc, type LedgerTransaction, type LocalLedgerView } from './rpc.ts';
import { ChainStore, type LogRecord } from './store.ts';
import { feeOf, loadLight, rejection } from './svm.ts';
import { DEFAULT_TREE_CONFIG, MIN_OPEN_TREES, registerTreeInstructions, registrationCost, type TreeConfig } from './trees.ts';
import { ChainRejected, type ChainA, type LocalTokens, type SentTransaction } from '#lib/chains/chain-a/port.ts';
import { ensureLightArtifacts } from '#lib/chains/chain-a/setup.ts';

/**
 * The embedded chain A: the Solana runtime in process (LiteSVM, a native module, loaded with a
 * dynamic import so that no Lambda bundle carries it) running Light Protocol's own programs
 * (account compression, light system, compressed token, registry, noop) on their initial state
 * trees from `@lightprotocol/zk-compression-cli`. Every transaction is signed and verified and
 * executed by the programs; nothing here decides what is valid.
 *
 * State: every change (transaction, airdrop, placed account) is appended to a log under
 * `$DATA_DIR/chain-a/`, with a snapshot of the runtime now and then (local-store.ts); a restart of
 * `npm start` loads the snapshot and executes the transactions after it again, so it finds the
 * same accounts and compressed state.
 *
 * Each transaction advances the slot and the blockhash, as a cluster would between blocks (and
 * so two identical transactions are two transactions, not one replayed).
 */
type Kit = typeof import('@solana/kit');
type LiteSvmModule = typeof import('litesvm');

const NATIVE_MINT_ADDRESS = 'So11111111111111111111111111111111111111112';

/** Whole tokens the release escrow starts with per SPL route (`prepareReleaseCollateral`; it stands for what deposits locked on mainnet). */
export const LOCAL_TOKEN_COLLATERAL = 1_000_000n;

/** How many changes between two snapshots: a restart runs at most this many again (~3 ms each). */
const SNAPSHOT_EVERY = 500;

export class LocalChainA implements ChainA {
  readonly network = 'localnet' as const;
  readonly rpc: Rpc;
  private readonly local: LiteSvmRpc;
  /** A tree registration under way (trees.ts): its own transactions do not start another. */
  private registering = false;
  private readonly ledger: LedgerTransaction[];
  private readonly bySignature = new Map<string, LedgerTransaction>();
  /**
   * The blockhashes a transaction may carry: the latest 150, as a cluster accepts any recent one.
   * LiteSVM itself accepts only its latest, so its own check is off and this one stands in.
   */
  private readonly recentBlockhashes: string[] = [];

  private constructor(
    private readonly svm: LiteSVM,
    private readonly kit: Kit,
    private readonly store: ChainStore | undefined,
    ledger: LedgerTransaction[],
    hasher: import('@lightprotocol/stateless.js').LightWasm,
    private readonly treeConfig: TreeConfig,
  ) {
    this.ledger = ledger;
    for (const t of ledger) this.bySignature.set(t.signature, t);
    this.svm.withBlockhashCheck(false);
    this.recentBlockhashes.push(this.svm.latestBlockhash());
    const view: LocalLedgerView = {
      slot: () => Number(this.svm.getClock().slot),
      blockhash: () => this.svm.latestBlockhash(),
      account: (a) => this.account(a),
      rentExemption: (n) => Number(this.svm.minimumBalanceForRentExemption(BigInt(n))),
      transactions: () => this.ledger,
      transaction: (s) => this.bySignature.get(s),
    };
    this.local = new LiteSvmRpc(view, hasher);
    this.rpc = this.local;
  }

  /**
   * Opens the chain kept under `dataDir` (or a fresh one in memory when `dataDir` is undefined):
   * the last snapshot and the log's changes after it run again, else a new runtime with Light's
   * programs and accounts. `snapshotEvery`: changes between two snapshots (tests lower it);
   * `treeConfig`: the size of the state trees it registers when its trees fill (trees.ts).
   */
  static async open(dataDir: string | undefined, options: { snapshotEvery?: number; treeConfig?: TreeConfig } = {}): Promise<LocalChainA> {
    const [{ LiteSVM }, kit, { WasmFactory }] = await Promise.all([
      import('litesvm') as Promise<LiteSvmModule>,
      import('@solana/kit') as Promise<Kit>,
      import('@lightprotocol/hasher.rs'),
    ]);
    const hasher = await WasmFactory.getInstance();
    const loaded = dataDir ? ChainStore.load(join(dataDir, 'chain-a'), options.snapshotEvery ?? SNAPSHOT_EVERY) : undefined;
    const stored = loaded?.stored;
    const ledger = (stored?.records ?? []).flatMap((r) => (r.k === 'tx' ? [r.e] : []));
    let svm: LiteSVM;
    if (stored?.snapshot) {
      svm = LiteSVM.fromBytes(stored.snapshot);
      if (!svm.getAccount(kit.address(NATIVE_MINT_ADDRESS)).exists) svm.withNativeMints();
    } else {
      // Every cluster has the wrapped-SOL mint from genesis; LiteSVM adds it on request.
      svm = new LiteSVM().withNativeMints();
      loadLight(svm, kit, ensureLightArtifacts());
      // On a live cluster the compressed-SOL pool account has long been funded; a fresh one would
      // refuse a first compression smaller than its rent-exempt minimum.
      svm.airdrop(kit.address(LightSystemProgram.deriveCompressedSolPda().toBase58()), kit.lamports(svm.minimumBalanceForRentExemption(0n)));
    }
    const chain = new LocalChainA(svm, kit, loaded?.store, ledger, hasher, options.treeConfig ?? DEFAULT_TREE_CONFIG);
    if (stored) {
      const replay = stored.records.slice(stored.snapshot ? stored.applied : 0);
      if (!stored.snapshot && replay.length) throw new Error('chain-a: log.jsonl without snapshot.bin; move chain-a/ away to start a fresh local chain');
      for (const r of replay) chain.replay(r);
      // A snapshot of the state just rebuilt, so that the next start runs nothing again.
      if (!stored.snapshot || replay.length) await loaded.store.snapshot(svm.toBytes());
    }
    // A DATA_DIR whose trees filled before trees were registered gets its new ones now.
    await chain.keepTreesOpen();
    return chain;
  }

  /** Runs one change of the log again on the state before it, checking it lands as it did. */
  private replay(r: LogRecord) {
    if (r.k === 'set') {
      this.setAccount(new PublicKey(r.address), Buffer.from(r.data, 'base64'), BigInt(r.lamports), new PublicKey(r.owner));
      return;
    }
    let signature: string;
    let expected: string;
    if (r.k === 'airdrop') {
      const result = this.svm.airdrop(this.kit.address(r.to), this.kit.lamports(BigInt(r.lamports)));
      const failed = !result || 'err' in result;
      if (failed !== (r.failed ?? false)) throw new Error(`chain-a: replay diverged (an airdrop to ${r.to} ${failed ? 'failed' : 'landed'})`);
      if (failed) return;
      signature = bs58.encode(result.signature());
      expected = r.signature;
    } else if (r.k === 'failed') {
      const result = this.svm.sendTransaction(this.kit.getTransactionDecoder().decode(Buffer.from(r.tx, 'base64')));
      if (!('err' in result)) throw new Error(`chain-a: replay diverged (a transaction that failed landed: ${bs58.encode(result.signature())})`);
      return;
    } else {
      if (!r.tx) throw new Error(`chain-a: transaction ${r.e.signature} is after the snapshot but the log has not its bytes`);
      const result = this.svm.sendTransaction(this.kit.getTransactionDecoder().decode(Buffer.from(r.tx, 'base64')));
      if ('err' in result) throw new Error(`chain-a: replaying ${r.e.signature} failed: ${result.err().toString()}`);
      signature = bs58.encode(result.signature());
      expected = r.e.signature;
    }
    if (signature !== expected) throw new Error(`chain-a: replay diverged (${signature} where the log has ${expected})`);
    this.nextBlock();
  }

  async sendAndConfirm(tx: VersionedTransaction): Promise<SentTransaction> {
    if (!this.recentBlockhashes.includes(tx.message.recentBlockhash)) throw new ChainRejected('transaction failed: BlockhashNotFound');
    const bytes = tx.serialize();
    const result = this.svm.sendTransaction(this.kit.getTransactionDecoder().decode(bytes));
    if ('err' in result) {
      // A failed transaction still pays its fee: that too is a change to run again after a restart.
      await this.persist({ k: 'failed', tx: Buffer.from(bytes).toString('base64') });
      throw rejection(result);
    }
    const slot = Number(this.svm.getClock().slot);
    const signature = bs58.encode(result.signature());
    const keys = tx.message.staticAccountKeys.map((k) => k.toBase58());
    const entry: LedgerTransaction = {
      signature,
      slot,
      message: Buffer.from(tx.message.serialize()).toString('base64'),
      accountKeys: keys,
      instructions: tx.message.compiledInstructions.map((i) => ({
        programIdIndex: i.programIdIndex,
        accounts: [...i.accountKeyIndexes],
        data: Buffer.from(i.data).toString('base64'),
      })),
      inner: result
        .innerInstructions()
        .map((list, index) => ({
          index,
          instructions: list.map((ii) => {
            const c = ii.instruction();
            return { programIdIndex: c.programIdIndex(), accounts: [...c.accounts()], data: bs58.encode(c.data()) };
          }),
        }))
        .filter((g) => g.instructions.length > 0),
      logs: result.logs(),
      fee: Number(feeOf(tx)),
    };
    this.ledger.push(entry);
    this.bySignature.set(signature, entry);
    this.nextBlock();
    await this.persist({ k: 'tx', tx: Buffer.from(bytes).toString('base64'), e: entry });
    // The transaction has landed: a registration that fails must not make it look refused.
    await this.keepTreesOpen().catch((e: unknown) =>
      console.error(JSON.stringify({ level: 'WARN', message: 'chain-a: registering a state tree failed', error: (e as Error).message })),
    );
    return { signature, slot };
  }

  /**
   * Registers state trees until `MIN_OPEN_TREES` have room, as Light's operators add trees to the
   * network's list (trees.ts): a payer funded by the faucet sends the registry's instruction, and
   * the transaction is logged and replayed like any other. Runs after the transaction that filled
   * a tree, so the next one built already sees the new tree.
   */
  private async keepTreesOpen(): Promise<void> {
    if (this.registering || this.local.stateTrees().open >= MIN_OPEN_TREES) return;
    this.registering = true;
    try {
      while (this.local.stateTrees().open < MIN_OPEN_TREES) {
        const rent = (bytes: number) => Number(this.svm.minimumBalanceForRentExemption(BigInt(bytes)));
        const payer = Keypair.generate();
        const keys = { tree: Keypair.generate(), queue: Keypair.generate(), cpiContext: Keypair.generate() };
        await this.airdrop(payer.publicKey, registrationCost(this.treeConfig, rent));
        const index = this.local.stateTrees().infos.length;
        const ixs = registerTreeInstructions(payer.publicKey, keys, index, this.treeConfig, rent);
        await this.sendAndConfirm(buildAndSignTx(ixs, payer, this.svm.latestBlockhash(), [keys.tree, keys.queue, keys.cpiContext]));
      }
    } finally {
      this.registering = false;
    }
  }

  async airdrop(to: PublicKey, lamports: bigint): Promise<SentTransaction> {
    const result = this.svm.airdrop(this.kit.address(to.toBase58()), this.kit.lamports(lamports));
    if (!result || 'err' in result) {
      // A failed airdrop, too, pays its fee from the faucet.
      if (result) await this.persist({ k: 'airdrop', to: to.toBase58(), lamports: lamports.toString(), signature: '', failed: true });
      throw new ChainRejected(`airdrop failed: ${result?.toString() ?? 'no result'}`);
    }
    const slot = Number(this.svm.getClock().slot);
    const signature = bs58.encode(result.signature());
    this.nextBlock();
    await this.persist({ k: 'airdrop', to: to.toBase58(), lamports: lamports.toString(), signature });
    return { signature, slot };
  }

  async prepareRoute(mint: PublicKey, decimals: number, escrow?: PublicKey): Promise<void> {
    await this.localTokens.ensureMint(mint, decimals);
    if (escrow && !this.account(escrow)) await this.localTokens.credit(mint, escrow, escrow, 0n);
  }

  async prepareReleaseCollateral(mint: PublicKey, decimals: number, escrow: PublicKey): Promise<void> {
    await this.prepareRoute(mint, decimals);
    const account = getAssociatedTokenAddressSync(mint, escrow, true);
    if (!this.account(account)) await this.localTokens.credit(mint, account, escrow, LOCAL_TOKEN_COLLATERAL * 10n ** BigInt(decimals));
  }

  readonly localTokens: LocalTokens = {
    ensureMint: async (mint, decimals) => {
      const existing = this.account(mint);
      if (existing) {
        if (!existing.owner.equals(TOKEN_PROGRAM_ID) || existing.data.length !== MINT_SIZE) throw new ChainRejected(`${mint.toBase58()} is not a mint`);
        const have = MintLayout.decode(existing.data).decimals;
        if (have !== decimals) throw new ChainRejected(`mint ${mint.toBase58()} has ${have} decimals, not ${decimals}`);
        return;
      }
      const data = Buffer.alloc(MINT_SIZE);
      MintLayout.encode(
        {
          mintAuthorityOption: 0,
          mintAuthority: PublicKey.default,
          supply: 0n,
          decimals,
          isInitialized: true,
          freezeAuthorityOption: 0,
          freezeAuthority: PublicKey.default,
        },
        data,
      );
      await this.place(mint, data);
    },
    credit: async (mint, account, owner, amount) => {
      const m = this.account(mint);
      if (!m || !m.owner.equals(TOKEN_PROGRAM_ID)) throw new ChainRejected(`no mint ${mint.toBase58()} on this chain`);
      const mintData = MintLayout.decode(m.data);
      const existing = this.account(account);
      let holder: ReturnType<typeof AccountLayout.decode>;
      if (existing) {
        holder = AccountLayout.decode(existing.data);
        if (!holder.mint.equals(mint) || !holder.owner.equals(owner))
          throw new ChainRejected(`${account.toBase58()} is not ${owner.toBase58()}'s account of ${mint.toBase58()}`);
      } else {
        holder = {
          mint,
          owner,
          amount: 0n,
          delegateOption: 0,
          delegate: PublicKey.default,
          state: AccountState.Initialized,
          isNativeOption: 0,
          isNative: 0n,
          delegatedAmount: 0n,
          closeAuthorityOption: 0,
          closeAuthority: PublicKey.default,
        };
      }
      const data = Buffer.alloc(ACCOUNT_SIZE);
      AccountLayout.encode({ ...holder, amount: holder.amount + amount }, data);
      const supply = Buffer.alloc(MINT_SIZE);
      MintLayout.encode({ ...mintData, supply: mintData.supply + amount }, supply);
      await Promise.all([this.place(account, data), this.place(mint, supply)]);
    },
  };

  /** Writes an SPL Token account as genesis or a snapshot would hold it (rent-exempt), then persists. */
  private place(address: PublicKey, data: Buffer): Promise<void> {
    const lamports = this.svm.minimumBalanceForRentExemption(BigInt(data.length));
    this.setAccount(address, data, lamports, TOKEN_PROGRAM_ID);
    return this.persist({
      k: 'set',
      address: address.toBase58(),
      data: data.toString('base64'),
      lamports: lamports.toString(),
      owner: TOKEN_PROGRAM_ID.toBase58(),
    });
  }

  private setAccount(address: PublicKey, data: Buffer, lamports: bigint, owner: PublicKey) {
    this.svm.setAccount({
      address: this.kit.address(address.toBase58()),
      data,
      executable: false,
      lamports: this.kit.lamports(lamports),
      programAddress: this.kit.address(owner.toBase58()),
      space: BigInt(data.length),
    });
  }

  async indexerSlot(): Promise<number> {
    return Number(this.svm.getClock().slot);
  }

  explorerUrl(signature: string): string {
    return `https://explorer.solana.com/tx/${signature}?cluster=custom&customUrl=http%3A%2F%2Flocalhost%3A8899`;
  }

  /** The runtime's snapshot, for benchmarks that drive a copy of it directly. */
  snapshot(): Uint8Array {
    return this.svm.toBytes();
  }

  private account(address: PublicKey): AccountInfo<Buffer> | null {
    const a = this.svm.getAccount(this.kit.address(address.toBase58()));
    if (!a.exists) return null;
    return { data: Buffer.from(a.data), executable: a.executable, lamports: Number(a.lamports), owner: new PublicKey(a.programAddress), rentEpoch: 0 };
  }

  /** A block without transactions of ours (the fault layer's passing time, faults.ts): a new slot and blockhash. */
  advanceBlock(): void {
    this.nextBlock();
  }

  private nextBlock() {
    this.svm.warpToSlot(this.svm.getClock().slot + 1n);
    this.svm.expireBlockhash();
    this.recentBlockhashes.push(this.svm.latestBlockhash());
    if (this.recentBlockhashes.length > 150) this.recentBlockhashes.shift();
  }

  /**
   * Appends the change just made to the log (the caller waits for that line only) and, every so
   * often, queues a snapshot of the state after it (its `toBytes` is the one part on this thread).
   */
  private persist(record: LogRecord): Promise<void> {
    if (!this.store) return Promise.resolve();
    const appended = this.store.append(record);
    if (this.store.snapshotDue()) this.store.snapshot(this.svm.toBytes()).catch(() => undefined);
    return appended;
  }

  /** Resolves once every change and snapshot queued so far is on disk, and closes the log (tests, shutdown). */
  async close(): Promise<void> {
    await this.store?.close();
  }
}
