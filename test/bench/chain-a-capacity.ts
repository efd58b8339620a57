/**
 * The embedded chain A's capacity (`npm run bench -- chain-a-capacity`): 10,000 new compressed
 * accounts (`BENCH_ACCOUNTS`) in one DATA_DIR, built by the SDK as the service builds them
 * (lib/chains/chain-a/operations.ts `compressNative`), then a spend from each signer (accounts in
 * full trees among them), a restart, the same balances, and more accounts after it. Issue 39's
 * target: keeps working past 10,000 (before lib/local/chain-a/trees.ts, refusals began near 449).
 * Prints per 1,000 accounts the median milliseconds per account and the state trees; asserts
 * nothing, but says which step refused.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { TreeType } from '@lightprotocol/stateless.js';
import { Keypair } from '@solana/web3.js';

const TOTAL = Number(process.env.BENCH_ACCOUNTS ?? 10_000);
const SIGNERS = 20;
const dir = mkdtempSync(join(tmpdir(), 'shroud-bench-chaina-capacity-'));
const { LocalChainA } = await import('#lib/local/chain-a/chain.ts');
const ops = await import('#lib/chains/chain-a/operations.ts');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; ${TOTAL} compressed accounts, ${SIGNERS} signers, DATA_DIR ${dir}`,
);
let chain = await LocalChainA.open(dir);
const signers = Array.from({ length: SIGNERS }, () => Keypair.generate());
for (const s of signers) await chain.airdrop(s.publicKey, 1_000_000_000_000n);
const trees = async () => {
  const v2 = (await chain.rpc.getStateTreeInfos()).filter((t) => t.treeType === TreeType.StateV2);
  return `${v2.length} V2 trees (${v2.filter((t) => !t.nextTreeInfo).length} open)`;
};

let landed = 0;
let refused: string | undefined;
const window: number[] = [];
const started = performance.now();
for (let n = 1; n <= TOTAL; n++) {
  const t = performance.now();
  try {
    await ops.compressNative(chain, signers[n % SIGNERS]!, 1_000n);
    landed++;
  } catch (e) {
    refused = `account ${n}: ${(e as Error).message}`;
    break;
  }
  window.push(performance.now() - t);
  if (n % 1_000 === 0) {
    console.log(`${String(n).padStart(6)}: ${median(window).toFixed(1)} ms median per account over the last 1,000; ${await trees()}`);
    window.length = 0;
  }
}
console.log(`${landed} accounts landed in ${((performance.now() - started) / 1000).toFixed(1)} s${refused ? `; refused at ${refused}` : ''}`);

// Spend from every signer: each holds accounts in the full initial trees.
let spent = 0;
for (const s of signers) {
  try {
    await ops.decompressNative(chain, s, 2_500n);
    spent++;
  } catch (e) {
    console.log(`spend refused: ${(e as Error).message}`);
  }
}
const expected = await Promise.all(signers.map((s) => ops.compressedNativeBalance(chain, s.publicKey)));
console.log(`${spent}/${SIGNERS} spends (3 accounts each, change to an open tree) landed`);
await chain.close();

const t = performance.now();
chain = await LocalChainA.open(dir);
const restart = performance.now() - t;
const same = (await Promise.all(signers.map((s) => ops.compressedNativeBalance(chain, s.publicKey)))).every((b, i) => b === expected[i]);
let after = 0;
for (let i = 0; i < 100; i++) {
  try {
    await ops.compressNative(chain, signers[i % SIGNERS]!, 1n);
    after++;
  } catch {
    break;
  }
}
const snapshot = statSync(join(dir, 'chain-a', 'snapshot.bin')).size;
console.log(
  `restart ${restart.toFixed(0)} ms; balances ${same ? 'the same' : 'DIFFER'}; ${after}/100 accounts after it; ${await trees()}; snapshot ${(snapshot / 1e6).toFixed(1)} MB`,
);
const ok = landed === TOTAL && spent === SIGNERS && same && after === 100;
console.log(
  `| local chain A capacity | ${landed} accounts in one DATA_DIR, ${spent} spends, restart ${same ? '✔' : '✘'} | past 10,000 ${ok && TOTAL >= 10_000 ? '✔' : '✘'} |`,
);
await chain.close();
rmSync(dir, { recursive: true, force: true });
