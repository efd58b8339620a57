import {
  bn,
  COMPRESSED_TOKEN_PROGRAM_ID,
  COMPUTE_BUDGET_PATTERN,
  createCompressedAccountWithMerkleContextLegacy,
  defaultStaticAccountsStruct,
  getStateTreeInfoByPubkey,
  localTestActiveStateTreeInfos,
  MerkleTree,
  parseLightTransaction,
  parseTokenLayoutWithIdl,
  TestRpc,
  TreeType,
  type BN254,
  type CompressedAccountWithMerkleContext,
  type GetCompressedAccountsByOwnerConfig,
  type GetCompressedTokenAccountsByOwnerOrDelegateOptions,
  type LightWasm,
  type MerkleContextWithMerkleProof,
  type ParsedTokenAccount,
  type PublicTransactionEvent,
  type TreeInfo,
  type WithCursor,
} from '@lightprotocol/stateless.js';
import bs58 from 'bs58';
import { OPEN_MARGIN, queueRoom, registeredTree } from './trees.ts';
import {
  PublicKey,
  type AccountInfo,
  type BlockhashWithExpiryBlockHeight,
  type ConfirmedSignatureInfo,
  type EpochInfo,
  type GetTransactionConfig,
  type GetVersionedTransactionConfig,
  type TransactionResponse,
  type ParsedTransactionWithMeta,
  type RpcResponseAndContext,
  type SignatureStatus,
  type VersionedTransactionResponse,
  VersionedMessage,
} from '@solana/web3.js';

/**
 * What the local runtime answers reads from: the LiteSVM instance and the ledger of the
 * transactions it executed (LiteSVM keeps accounts, not an index by address).
 */
export interface LocalLedgerView {
  slot(): number;
  blockhash(): string;
  account(address: PublicKey): AccountInfo<Buffer> | null;
  rentExemption(bytes: number): number;
  transactions(): readonly LedgerTransaction[];
  transaction(signature: string): LedgerTransaction | undefined;
}

/** One executed transaction, as the compression indexer needs it (instructions and inner instructions). */
export interface LedgerTransaction {
  signature: string;
  slot: number;
  /** The serialized message, base64. */
  message: string;
  accountKeys: string[];
  /** Top-level instructions: program index, account indexes, data (base64). */
  instructions: { programIdIndex: number; accounts: number[]; data: string }[];
  /** Inner instructions per top-level instruction index; data base58, as JSON-RPC sends it. */
  inner: { index: number; instructions: { programIdIndex: number; accounts: number[]; data: string }[] }[];
  logs: string[];
  /** The fee the runtime charged its fee payer (lamports): lib/chains/chain-a/local.ts `feeOf`. Absent on entries older than it (0). */
  fee?: number;
}

const LOCAL_ENDPOINT = 'http://127.0.0.1:8899';

/**
 * Light Protocol's own `TestRpc` (stateless.js) with its Solana JSON-RPC reads answered from the
 * in-process runtime instead of a validator: the compression API (compressed accounts, balances,
 * validity proofs by index on V2 trees) is TestRpc's, rebuilt from the programs' events exactly
 * as it does against `solana-test-validator`. Only the reads the SDKs make are served; anything
 * else throws rather than reaching for a network.
 */
export class LiteSvmRpc extends TestRpc {
  constructor(
    private readonly ledger: LocalLedgerView,
    hasher: LightWasm,
  ) {
    super(LOCAL_ENDPOINT, hasher, LOCAL_ENDPOINT, LOCAL_ENDPOINT, { commitment: 'confirmed' });
  }

  // ---- the compression indexer ----------------------------------------------------------------
  //
  // TestRpc re-reads and re-parses every transaction of the ledger on every call (its
  // `getParsedEvents`), so each read grows with the ledger. The same parsing — the same
  // instruction data and inner-instruction accounts handed to stateless.js's own
  // `parseLightTransaction` — is done here once per transaction, incrementally, and the reads
  // TestRpc serves from events are answered from that index.

  private readonly events: PublicTransactionEvent[] = [];
  private indexed = 0;
  /** The initial trees, then every tree registered since (trees.ts), in the order they came. */
  private readonly trees: TreeInfo[] = localTestActiveStateTreeInfos();
  private treesFound = 0;
  private emptyTree?: MerkleTree;

  private index(): PublicTransactionEvent[] {
    const all = this.ledger.transactions();
    const compression = defaultStaticAccountsStruct().accountCompressionProgram.toBase58();
    for (; this.indexed < all.length; this.indexed++) {
      const tx = all[this.indexed]!;
      if (!tx.accountKeys.includes(compression) || tx.inner.length === 0) continue;
      const keys = tx.accountKeys.map((k) => new PublicKey(k));
      const data: Uint8Array[] = tx.instructions
        .map((i) => Buffer.from(i.data, 'base64'))
        .filter((d) => d.length > 0 && !(d.length === COMPUTE_BUDGET_PATTERN.length && COMPUTE_BUDGET_PATTERN.every((b, j) => b === d[j])));
      const accounts: PublicKey[][] = [];
      for (const group of tx.inner) {
        for (const ix of group.instructions) {
          accounts.push(ix.accounts.map((a) => keys[a]!));
          const d = bs58.decode(ix.data);
          if (d.length > 0) data.push(d);
        }
      }
      const event = parseLightTransaction(data, accounts);
      if (event) this.events.push(event);
    }
    return this.events;
  }

  /**
   * The state trees as the network's active list gives them (trees.ts): V2 trees with room first;
   * a V2 tree without room carries an open tree as its `nextTreeInfo`, so that stateless.js picks
   * no output there and sends the outputs of accounts spent from it to the open tree.
   */
  stateTrees(): { infos: TreeInfo[]; open: number } {
    const all = this.ledger.transactions();
    for (; this.treesFound < all.length; this.treesFound++) {
      const tree = registeredTree(all[this.treesFound]!);
      if (tree) this.trees.push(tree);
    }
    const open: TreeInfo[] = [];
    const full: TreeInfo[] = [];
    const others: TreeInfo[] = [];
    for (const t of this.trees) {
      const queue = t.treeType === TreeType.StateV2 ? this.ledger.account(t.queue) : null;
      if (!queue) {
        others.push({ ...t });
        continue;
      }
      const { room, capacity } = queueRoom(queue.data);
      (room >= Math.ceil(capacity * OPEN_MARGIN) ? open : full).push({ ...t });
    }
    for (const t of full) t.nextTreeInfo = open[0] ?? null;
    return { infos: [...open, ...full, ...others], open: open.length };
  }

  override async getStateTreeInfos(): Promise<TreeInfo[]> {
    return this.stateTrees().infos;
  }

  /** Every output account ever created (spent or not), with the hashes spent so far. */
  private outputs(): { accounts: CompressedAccountWithMerkleContext[]; spent: Set<string> } {
    const accounts: CompressedAccountWithMerkleContext[] = [];
    const spent = new Set<string>();
    const { infos } = this.stateTrees();
    for (const event of this.index()) {
      event.outputCompressedAccounts.forEach((output, i) => {
        const treeInfo = getStateTreeInfoByPubkey(infos, event.pubkeyArray[output.merkleTreeIndex]!);
        const account = output.compressedAccount;
        accounts.push(
          createCompressedAccountWithMerkleContextLegacy(
            {
              treeInfo,
              hash: bn(event.outputCompressedAccountHashes[i]!),
              leafIndex: event.outputLeafIndices[i]!,
              proveByIndex: treeInfo.treeType === TreeType.StateV2,
            },
            account.owner,
            account.lamports,
            account.data ?? undefined,
            account.address ?? undefined,
          ),
        );
      });
      for (const h of event.inputCompressedAccountHashes) spent.add(bn(h).toString());
    }
    return { accounts, spent };
  }

  private unspent(): CompressedAccountWithMerkleContext[] {
    const { accounts, spent } = this.outputs();
    return accounts.filter((a) => !spent.has(bn(a.hash).toString())).sort((a, b) => b.leafIndex - a.leafIndex);
  }

  override async getCompressedAccountsByOwner(
    owner: PublicKey,
    _config?: GetCompressedAccountsByOwnerConfig,
  ): Promise<WithCursor<CompressedAccountWithMerkleContext[]>> {
    return { items: this.unspent().filter((a) => a.owner.equals(owner)), cursor: null };
  }

  override async getCompressedAccount(address?: BN254, hash?: BN254): Promise<CompressedAccountWithMerkleContext | null> {
    if (address || !hash) throw new Error('the local indexer looks compressed accounts up by hash');
    return this.unspent().find((a) => bn(a.hash).eq(hash)) ?? null;
  }

  override async getMultipleCompressedAccounts(hashes: BN254[]): Promise<CompressedAccountWithMerkleContext[]> {
    return this.unspent()
      .filter((a) => hashes.some((h) => bn(a.hash).eq(h)))
      .sort((a, b) => b.leafIndex - a.leafIndex);
  }

  /**
   * Proofs for accounts of V2 (batched) trees: inclusion is proven by index against the output
   * queue, as TestRpc does without a forester (the path is the empty tree's, root index 0).
   */
  override async getMultipleCompressedAccountProofs(hashes: BN254[]): Promise<MerkleContextWithMerkleProof[]> {
    const { accounts } = this.outputs();
    this.emptyTree ??= new MerkleTree(32, this.lightWasm, []);
    const path = this.emptyTree._zeros.slice(0, -1).map((z) => bn(z));
    const root = bn(this.emptyTree.root());
    return hashes.map((h) => {
      const a = accounts.find((x) => bn(x.hash).eq(h));
      if (!a) throw new Error(`no compressed account with hash ${h.toString()}`);
      if (a.treeInfo.treeType !== TreeType.StateV2) throw new Error('the local indexer proves accounts of V2 state trees only');
      return { hash: bn(h.toArray('be', 32)), treeInfo: a.treeInfo, leafIndex: a.leafIndex, merkleProof: path, proveByIndex: true, rootIndex: 0, root };
    });
  }

  override async getLatestBlockhash(): Promise<BlockhashWithExpiryBlockHeight> {
    return { blockhash: this.ledger.blockhash(), lastValidBlockHeight: this.ledger.slot() + 150 };
  }

  override async getSlot(): Promise<number> {
    return this.ledger.slot();
  }

  /** One block per slot here (LiteSVM skips none). */
  override getBlockHeight = async (): Promise<number> => this.ledger.slot();

  /** Height and slot in one answer, as lib/chains/chain-a/settle.ts reads them (one block per slot here). */
  override getEpochInfo = async (): Promise<EpochInfo> => {
    const slot = this.ledger.slot();
    return { epoch: 0, slotIndex: slot, slotsInEpoch: 432_000, absoluteSlot: slot, blockHeight: slot };
  };

  override async getIndexerSlot(): Promise<number> {
    return this.ledger.slot();
  }

  override async confirmTransactionIndexed(): Promise<boolean> {
    return true;
  }

  override async getBalance(address: PublicKey): Promise<number> {
    return this.ledger.account(address)?.lamports ?? 0;
  }

  override async getAccountInfo(address: PublicKey): Promise<AccountInfo<Buffer> | null> {
    return this.ledger.account(address);
  }

  override async getAccountInfoAndContext(address: PublicKey): Promise<RpcResponseAndContext<AccountInfo<Buffer> | null>> {
    return { context: { slot: this.ledger.slot() }, value: this.ledger.account(address) };
  }

  override async getMultipleAccountsInfo(addresses: PublicKey[]): Promise<(AccountInfo<Buffer> | null)[]> {
    return addresses.map((a) => this.ledger.account(a));
  }

  override async getMinimumBalanceForRentExemption(bytes: number): Promise<number> {
    return this.ledger.rentExemption(bytes);
  }

  override async getSignatureStatuses(signatures: string[]): Promise<RpcResponseAndContext<(SignatureStatus | null)[]>> {
    return {
      context: { slot: this.ledger.slot() },
      value: signatures.map((s) => {
        const tx = this.ledger.transaction(s);
        return tx ? { slot: tx.slot, confirmations: null, err: null, confirmationStatus: 'confirmed' } : null;
      }),
    };
  }

  /** Newest first, as a validator answers; only what touched `address`. */
  override async getSignaturesForAddress(address: PublicKey): Promise<ConfirmedSignatureInfo[]> {
    const key = address.toBase58();
    return this.ledger
      .transactions()
      .filter((t) => t.accountKeys.includes(key))
      .map((t) => ({ signature: t.signature, slot: t.slot, err: null, memo: null, blockTime: null, confirmationStatus: 'confirmed' as const }))
      .reverse();
  }

  /** As a validator answers `jsonParsed`: inner instructions partially decoded (program, accounts, base58 data). */
  override async getParsedTransactions(signatures: string[]): Promise<(ParsedTransactionWithMeta | null)[]> {
    return signatures.map((s) => {
      const tx = this.ledger.transaction(s);
      if (!tx) return null;
      const keys = tx.accountKeys.map((k) => new PublicKey(k));
      const message = VersionedMessage.deserialize(Buffer.from(tx.message, 'base64'));
      return {
        slot: tx.slot,
        blockTime: null,
        transaction: {
          signatures: [tx.signature],
          message: {
            accountKeys: keys.map((pubkey, i) => ({
              pubkey,
              signer: message.isAccountSigner(i),
              writable: message.isAccountWritable(i),
              source: 'transaction' as const,
            })),
            instructions: tx.instructions.map((i) => ({
              programId: keys[i.programIdIndex]!,
              accounts: i.accounts.map((a) => keys[a]!),
              data: bs58.encode(Buffer.from(i.data, 'base64')),
            })),
            recentBlockhash: message.recentBlockhash,
          },
        },
        meta: {
          err: null,
          fee: tx.fee ?? 0,
          preBalances: [],
          postBalances: [],
          logMessages: tx.logs,
          innerInstructions: tx.inner.map((g) => ({
            index: g.index,
            instructions: g.instructions.map((i) => ({ programId: keys[i.programIdIndex]!, accounts: i.accounts.map((a) => keys[a]!), data: i.data })),
          })),
        },
      };
    });
  }

  override getTransaction(signature: string, rawConfig?: GetTransactionConfig): Promise<TransactionResponse | null>;
  override getTransaction(signature: string, rawConfig: GetVersionedTransactionConfig): Promise<VersionedTransactionResponse | null>;
  override async getTransaction(signature: string): Promise<VersionedTransactionResponse | null> {
    const tx = this.ledger.transaction(signature);
    if (!tx) return null;
    return {
      slot: tx.slot,
      blockTime: null,
      version: 0,
      transaction: { signatures: [tx.signature], message: VersionedMessage.deserialize(Buffer.from(tx.message, 'base64')) },
      meta: { err: null, fee: tx.fee ?? 0, preBalances: [], postBalances: [], logMessages: tx.logs, innerInstructions: tx.inner },
    };
  }

  override async getCompressedTokenAccountsByOwner(
    owner: PublicKey,
    options: GetCompressedTokenAccountsByOwnerOrDelegateOptions,
  ): Promise<WithCursor<ParsedTokenAccount[]>> {
    const items = (await this.unspentTokenAccounts()).filter((a) => a.parsed.owner.equals(owner) && (!options?.mint || a.parsed.mint.equals(options.mint)));
    return { items: items.sort((a, b) => a.compressedAccount.leafIndex - b.compressedAccount.leafIndex), cursor: null };
  }

  override async getCompressedTokenAccountsByDelegate(
    delegate: PublicKey,
    options: GetCompressedTokenAccountsByOwnerOrDelegateOptions,
  ): Promise<WithCursor<ParsedTokenAccount[]>> {
    const items = (await this.unspentTokenAccounts()).filter(
      (a) => a.parsed.delegate?.equals(delegate) && (!options?.mint || a.parsed.mint.equals(options.mint)),
    );
    return { items, cursor: null };
  }

  /**
   * TestRpc's own token reader parses every event's outputs as token accounts and throws on the
   * first native-coin output ("No data"), so a ledger that mixes both cannot be read with it.
   * This is the same reading (the programs' events, outputs minus inputs) restricted to the
   * outputs the compressed-token program owns.
   */
  private async unspentTokenAccounts(): Promise<ParsedTokenAccount[]> {
    const { infos } = this.stateTrees();
    const events = this.index();
    const spent = new Set(events.flatMap((e) => e.inputCompressedAccountHashes.map((h) => bn(h).toString())));
    const out: ParsedTokenAccount[] = [];
    for (const event of events) {
      event.outputCompressedAccounts.forEach((output, i) => {
        const account = output.compressedAccount;
        if (!account.owner.equals(COMPRESSED_TOKEN_PROGRAM_ID) || !account.data || account.data.data.length === 0) return;
        const hash = bn(event.outputCompressedAccountHashes[i]!);
        if (spent.has(hash.toString())) return;
        const parsed = parseTokenLayoutWithIdl(account);
        if (!parsed) return;
        const treeInfo = getStateTreeInfoByPubkey(infos, event.pubkeyArray[output.merkleTreeIndex]!);
        const compressedAccount = createCompressedAccountWithMerkleContextLegacy(
          { treeInfo, hash, leafIndex: event.outputLeafIndices[i]!, proveByIndex: treeInfo.treeType === TreeType.StateV2 },
          account.owner,
          account.lamports,
          account.data,
          account.address ?? undefined,
        );
        out.push({ compressedAccount, parsed });
      });
    }
    return out;
  }
}
