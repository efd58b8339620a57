import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LightSystemProgram, type Rpc } from '@lightprotocol/stateless.js';
import { ACCOUNT_SIZE, AccountLayout, AccountState, MINT_SIZE, MintLayout, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { PublicKey, VersionedTransaction, type AccountInfo } from '@solana/web3.js';
import bs58 from 'bs58';
import type { LiteSVM } from 'litesvm';
import { LIGHT_PROGRAMS } from './light-artifacts.ts';
import { LiteSvmRpc, type LedgerTransaction, type LocalLedgerView } from './local-rpc.ts';
import { ChainRejected, type ChainA, type LocalTokens, type SentTransaction } from './port.ts';
import { ensureLightArtifacts } from './setup.ts';

/**
 * The embedded chain A: the Solana runtime in process (LiteSVM, a native module, loaded with a
 * dynamic import so that no Lambda bundle carries it) running Light Protocol's own programs
 * (account compression, light system, compressed token, registry, noop) on their initial state
 * trees from `@lightprotocol/zk-compression-cli`. Every transaction is signed and verified and
 * executed by the programs; nothing here decides what is valid.
 *
 * State: after every transaction the runtime's snapshot (`toBytes`) and the ledger of executed
 * transactions are written to `$DATA_DIR/chain-a/ledger.bin` (temp file + rename), so a restart
 * of `npm start` finds the same accounts and compressed state.
 *
 * Each transaction advances the slot and the blockhash, as a cluster would between blocks (and
 * so two identical transactions are two transactions, not one replayed).
 */
type Kit = typeof import('@solana/kit');
type LiteSvmModule = typeof import('litesvm');

const FORMAT = 1;
const NATIVE_MINT_ADDRESS = 'So11111111111111111111111111111111111111112';

interface AccountJson {
  pubkey: string;
  account: { lamports: number; data: [string, string]; owner: string; executable: boolean; space?: number };
}

export class LocalChainA implements ChainA {
  readonly network = 'localnet' as const;
  readonly rpc: Rpc;
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
    private readonly file: string | undefined,
    ledger: LedgerTransaction[],
    hasher: import('@lightprotocol/stateless.js').LightWasm,
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
    this.rpc = new LiteSvmRpc(view, hasher);
  }

  /**
   * Opens the chain kept under `dataDir` (or a fresh one in memory when `dataDir` is undefined):
   * the snapshot when there is one, else a new runtime with Light's programs and accounts.
   */
  static async open(dataDir: string | undefined): Promise<LocalChainA> {
    const [{ LiteSVM }, kit, { WasmFactory }] = await Promise.all([
      import('litesvm') as Promise<LiteSvmModule>,
      import('@solana/kit') as Promise<Kit>,
      import('@lightprotocol/hasher.rs'),
    ]);
    const hasher = await WasmFactory.getInstance();
    const file = dataDir ? join(dataDir, 'chain-a', 'ledger.bin') : undefined;
    if (file && existsSync(file)) {
      const { snapshot, ledger } = readLedgerFile(readFileSync(file));
      const restored = LiteSVM.fromBytes(snapshot);
      if (!restored.getAccount(kit.address(NATIVE_MINT_ADDRESS)).exists) restored.withNativeMints();
      return new LocalChainA(restored, kit, file, ledger, hasher);
    }
    // Every cluster has the wrapped-SOL mint from genesis; LiteSVM adds it on request.
    const svm = new LiteSVM().withNativeMints();
    loadLight(svm, kit, ensureLightArtifacts());
    // On a live cluster the compressed-SOL pool account has long been funded; a fresh one would
    // refuse a first compression smaller than its rent-exempt minimum.
    svm.airdrop(kit.address(LightSystemProgram.deriveCompressedSolPda().toBase58()), kit.lamports(svm.minimumBalanceForRentExemption(0n)));
    const chain = new LocalChainA(svm, kit, file, [], hasher);
    chain.persist();
    return chain;
  }

  async sendAndConfirm(tx: VersionedTransaction): Promise<SentTransaction> {
    if (!this.recentBlockhashes.includes(tx.message.recentBlockhash)) throw new ChainRejected('transaction failed: BlockhashNotFound');
    const bytes = tx.serialize();
    const result = this.svm.sendTransaction(this.kit.getTransactionDecoder().decode(bytes));
    if ('err' in result) throw rejection(result);
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
    this.persist();
    return { signature, slot };
  }

  async airdrop(to: PublicKey, lamports: bigint): Promise<SentTransaction> {
    const result = this.svm.airdrop(this.kit.address(to.toBase58()), this.kit.lamports(lamports));
    if (!result || 'err' in result) throw new ChainRejected(`airdrop failed: ${result?.toString() ?? 'no result'}`);
    const slot = Number(this.svm.getClock().slot);
    this.nextBlock();
    this.persist();
    return { signature: bs58.encode(result.signature()), slot };
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
      MintLayout.encode({ mintAuthorityOption: 0, mintAuthority: PublicKey.default, supply: 0n, decimals, isInitialized: true, freezeAuthorityOption: 0, freezeAuthority: PublicKey.default }, data);
      this.place(mint, data);
    },
    credit: async (mint, account, owner, amount) => {
      const m = this.account(mint);
      if (!m || !m.owner.equals(TOKEN_PROGRAM_ID)) throw new ChainRejected(`no mint ${mint.toBase58()} on this chain`);
      const mintData = MintLayout.decode(m.data);
      const existing = this.account(account);
      let holder: ReturnType<typeof AccountLayout.decode>;
      if (existing) {
        holder = AccountLayout.decode(existing.data);
        if (!holder.mint.equals(mint) || !holder.owner.equals(owner)) throw new ChainRejected(`${account.toBase58()} is not ${owner.toBase58()}'s account of ${mint.toBase58()}`);
      } else {
        holder = { mint, owner, amount: 0n, delegateOption: 0, delegate: PublicKey.default, state: AccountState.Initialized, isNativeOption: 0, isNative: 0n, delegatedAmount: 0n, closeAuthorityOption: 0, closeAuthority: PublicKey.default };
      }
      const data = Buffer.alloc(ACCOUNT_SIZE);
      AccountLayout.encode({ ...holder, amount: holder.amount + amount }, data);
      const supply = Buffer.alloc(MINT_SIZE);
      MintLayout.encode({ ...mintData, supply: mintData.supply + amount }, supply);
      this.place(account, data);
      this.place(mint, supply);
    },
  };

  /** Writes an SPL Token account as genesis or a snapshot would hold it (rent-exempt), then persists. */
  private place(address: PublicKey, data: Buffer) {
    this.svm.setAccount({
      address: this.kit.address(address.toBase58()),
      data,
      executable: false,
      lamports: this.kit.lamports(this.svm.minimumBalanceForRentExemption(BigInt(data.length))),
      programAddress: this.kit.address(TOKEN_PROGRAM_ID.toBase58()),
      space: BigInt(data.length),
    });
    this.persist();
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

  private nextBlock() {
    this.svm.warpToSlot(this.svm.getClock().slot + 1n);
    this.svm.expireBlockhash();
    this.recentBlockhashes.push(this.svm.latestBlockhash());
    if (this.recentBlockhashes.length > 150) this.recentBlockhashes.shift();
  }

  private persist() {
    if (!this.file) return;
    mkdirSync(join(this.file, '..'), { recursive: true });
    writeFileSync(`${this.file}.tmp`, writeLedgerFile(this.svm.toBytes(), this.ledger));
    renameSync(`${this.file}.tmp`, this.file);
  }
}

/** Light's five programs and every account of the package's `accounts/` directory. */
function loadLight(svm: LiteSVM, kit: Kit, dir: string) {
  for (const [id, file] of Object.entries(LIGHT_PROGRAMS)) svm.addProgramFromFile(kit.address(id), join(dir, 'bin', file));
  for (const file of readdirSync(join(dir, 'accounts')).filter((f) => f.endsWith('.json'))) {
    const { pubkey, account } = JSON.parse(readFileSync(join(dir, 'accounts', file), 'utf8')) as AccountJson;
    const data = Buffer.from(account.data[0], 'base64');
    svm.setAccount({
      address: kit.address(pubkey),
      data,
      executable: account.executable,
      lamports: kit.lamports(BigInt(account.lamports)),
      programAddress: kit.address(account.owner),
      space: BigInt(data.length),
    });
  }
}

function rejection(result: import('litesvm').FailedTransactionMetadata): ChainRejected {
  const logs = result.meta().logs();
  const err = result.err();
  const text = err.toString();
  let custom: number | undefined;
  if (typeof err === 'object' && 'err' in err) {
    const inner = err.err();
    if (typeof inner === 'object' && 'code' in inner) custom = inner.code;
  }
  const insufficient = /InsufficientFunds|AccountNotFound|insufficient lamports/i.test(`${text} ${logs.join(' ')}`) || typeof err === 'number' && [2, 5].includes(err);
  return new ChainRejected(`transaction failed: ${text}${custom !== undefined ? ` (custom program error ${custom})` : ''}`, logs, custom, insufficient);
}

/** ledger.bin: "SHROUD-CHAIN-A", format, snapshot length, snapshot bytes, the ledger as JSON. */
const MAGIC = Buffer.from('SHROUD-CHAIN-A');

function writeLedgerFile(snapshot: Uint8Array, ledger: LedgerTransaction[]): Buffer {
  const head = Buffer.alloc(MAGIC.length + 1 + 8);
  MAGIC.copy(head);
  head.writeUInt8(FORMAT, MAGIC.length);
  head.writeBigUInt64LE(BigInt(snapshot.length), MAGIC.length + 1);
  return Buffer.concat([head, snapshot, Buffer.from(JSON.stringify(ledger))]);
}

function readLedgerFile(buf: Buffer): { snapshot: Uint8Array; ledger: LedgerTransaction[] } {
  if (!buf.subarray(0, MAGIC.length).equals(MAGIC) || buf.readUInt8(MAGIC.length) !== FORMAT) {
    throw new Error('chain-a/ledger.bin is not a ledger of this format; move it away to start a fresh local chain');
  }
  const n = Number(buf.readBigUInt64LE(MAGIC.length + 1));
  const start = MAGIC.length + 9;
  return {
    snapshot: buf.subarray(start, start + n),
    ledger: JSON.parse(buf.subarray(start + n).toString('utf8')) as LedgerTransaction[],
  };
}

const COMPUTE_BUDGET = 'ComputeBudget111111111111111111111111111111';
/** LiteSVM's fee per signature, as a cluster's (its default FeeStructure). */
const LAMPORTS_PER_SIGNATURE = 5_000n;

/**
 * The fee a cluster charges for `tx`: 5,000 lamports per signature, plus the priority fee of its
 * ComputeBudget instructions (unit price in micro-lamports × unit limit, rounded up). LiteSVM
 * charges it but does not report it; the local ledger keeps it for `getTransaction` (the rewards
 * rule counts fees: lib/rewards/rules.ts).
 */
export function feeOf(tx: VersionedTransaction): bigint {
  const keys = tx.message.staticAccountKeys;
  let price = 0n;
  let limit: bigint | undefined;
  let others = 0n;
  for (const ix of tx.message.compiledInstructions) {
    const data = Buffer.from(ix.data);
    if (keys[ix.programIdIndex]?.toBase58() !== COMPUTE_BUDGET) {
      others++;
      continue;
    }
    if (data[0] === 2 && data.length >= 5) limit = BigInt(data.readUInt32LE(1));
    if (data[0] === 3 && data.length >= 9) price = data.readBigUInt64LE(1);
  }
  const units = limit ?? (200_000n * others < 1_400_000n ? 200_000n * others : 1_400_000n);
  return BigInt(tx.message.header.numRequiredSignatures) * LAMPORTS_PER_SIGNATURE + (price * units + 999_999n) / 1_000_000n;
}
