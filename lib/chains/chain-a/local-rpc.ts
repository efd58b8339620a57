import {
  bn,
  COMPRESSED_TOKEN_PROGRAM_ID,
  createCompressedAccountWithMerkleContextLegacy,
  getParsedEvents,
  getStateTreeInfoByPubkey,
  parseTokenLayoutWithIdl,
  TestRpc,
  TreeType,
  type GetCompressedTokenAccountsByOwnerOrDelegateOptions,
  type LightWasm,
  type ParsedTokenAccount,
  type Rpc,
  type WithCursor,
} from '@lightprotocol/stateless.js';
import {
  PublicKey,
  type AccountInfo,
  type BlockhashWithExpiryBlockHeight,
  type ConfirmedSignatureInfo,
  type GetTransactionConfig,
  type GetVersionedTransactionConfig,
  type TransactionResponse,
  type ParsedTransactionWithMeta,
  type RpcResponseAndContext,
  type SignatureStatus,
  type VersionedTransactionResponse,
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
  accountKeys: string[];
  /** Top-level instructions: program index, account indexes, data (base64). */
  instructions: { programIdIndex: number; accounts: number[]; data: string }[];
  /** Inner instructions per top-level instruction index; data base58, as JSON-RPC sends it. */
  inner: { index: number; instructions: { programIdIndex: number; accounts: number[]; data: string }[] }[];
  logs: string[];
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

  override async getLatestBlockhash(): Promise<BlockhashWithExpiryBlockHeight> {
    return { blockhash: this.ledger.blockhash(), lastValidBlockHeight: this.ledger.slot() + 150 };
  }

  override async getSlot(): Promise<number> {
    return this.ledger.slot();
  }

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

  /** The fields TestRpc's event parser reads: the signature, the account keys, the inner instructions. */
  override async getParsedTransactions(signatures: string[]): Promise<(ParsedTransactionWithMeta | null)[]> {
    return signatures.map((s) => {
      const tx = this.ledger.transaction(s);
      if (!tx) return null;
      const parsed = {
        slot: tx.slot,
        transaction: {
          signatures: [tx.signature],
          message: { accountKeys: tx.accountKeys.map((k) => ({ pubkey: new PublicKey(k), signer: false, writable: false })), instructions: [], recentBlockhash: '' },
        },
        meta: { err: null, fee: 0, preBalances: [], postBalances: [], logMessages: tx.logs, innerInstructions: tx.inner },
      };
      // A subset of ParsedTransactionWithMeta: exactly the fields the SDK's parser reads.
      return parsed as unknown as ParsedTransactionWithMeta;
    });
  }

  override getTransaction(signature: string, rawConfig?: GetTransactionConfig): Promise<TransactionResponse | null>;
  override getTransaction(signature: string, rawConfig: GetVersionedTransactionConfig): Promise<VersionedTransactionResponse | null>;
  override async getTransaction(signature: string): Promise<VersionedTransactionResponse | null> {
    const tx = this.ledger.transaction(signature);
    if (!tx) return null;
    const response = {
      slot: tx.slot,
      transaction: {
        signatures: [tx.signature],
        message: {
          staticAccountKeys: tx.accountKeys.map((k) => new PublicKey(k)),
          compiledInstructions: tx.instructions.map((i) => ({
            programIdIndex: i.programIdIndex,
            accountKeyIndexes: i.accounts,
            data: Buffer.from(i.data, 'base64'),
          })),
        },
      },
      meta: { err: null, fee: 0, preBalances: [], postBalances: [], logMessages: tx.logs, innerInstructions: tx.inner },
    };
    // A subset of VersionedTransactionResponse: the fields the SDK's parser reads.
    return response as unknown as VersionedTransactionResponse;
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
    const items = (await this.unspentTokenAccounts()).filter((a) => a.parsed.delegate?.equals(delegate) && (!options?.mint || a.parsed.mint.equals(options.mint)));
    return { items, cursor: null };
  }

  /**
   * TestRpc's own token reader parses every event's outputs as token accounts and throws on the
   * first native-coin output ("No data"), so a ledger that mixes both cannot be read with it.
   * This is the same reading (the programs' events, outputs minus inputs) restricted to the
   * outputs the compressed-token program owns.
   */
  private async unspentTokenAccounts(): Promise<ParsedTokenAccount[]> {
    const events = await getParsedEvents(this as unknown as Rpc);
    const infos = await this.getStateTreeInfos();
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
