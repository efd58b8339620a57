import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { VersionedTransaction } from '@solana/web3.js';
import type { LiteSVM } from 'litesvm';
import { LIGHT_PROGRAMS } from '#lib/chains/chain-a/light-artifacts.ts';
import { ChainRejected } from '#lib/chains/chain-a/port.ts';

/** What the embedded chain A (chain.ts) asks of LiteSVM beside running transactions: Light's programs loaded, a refusal as a cluster words it, a cluster's fee. */
type Kit = typeof import('@solana/kit');

interface AccountJson {
  pubkey: string;
  account: { lamports: number; data: [string, string]; owner: string; executable: boolean; space?: number };
}

/** Light's five programs and every account of the package's `accounts/` directory. */
export function loadLight(svm: LiteSVM, kit: Kit, dir: string) {
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

export function rejection(result: import('litesvm').FailedTransactionMetadata): ChainRejected {
  const logs = result.meta().logs();
  const err = result.err();
  const text = err.toString();
  let custom: number | undefined;
  if (typeof err === 'object' && 'err' in err) {
    const inner = err.err();
    if (typeof inner === 'object' && 'code' in inner) custom = inner.code;
  }
  const insufficient =
    /InsufficientFunds|AccountNotFound|insufficient lamports/i.test(`${text} ${logs.join(' ')}`) || (typeof err === 'number' && [2, 5].includes(err));
  return new ChainRejected(`transaction failed: ${text}${custom !== undefined ? ` (custom program error ${custom})` : ''}`, logs, custom, insufficient);
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
