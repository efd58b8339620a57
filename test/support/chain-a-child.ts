/**
 * A process that drives the embedded chain A under a DATA_DIR and then waits to be killed
 * (test/unit/chains/chain-a-crash.test.ts): every change it makes has been answered — so its log
 * line is written — before it prints what the chain holds; with a large `snapshotEvery` no
 * snapshot covers them. Arguments: the data directory, snapshotEvery.
 */
import { Keypair, PublicKey } from '@solana/web3.js';
import { LocalChainA } from '#lib/local/chain-a/chain.ts';
import * as ops from '#lib/chains/chain-a/operations.ts';

const [dir, every] = process.argv.slice(2) as [string, string];
const chain = await LocalChainA.open(dir, { snapshotEvery: Number(every) });
const alice = Keypair.generate();
const bob = Keypair.generate();
const signatures: string[] = [];
const keep = (s: { signature: string }) => signatures.push(s.signature);

await chain.airdrop(alice.publicKey, 10_000_000_000n);
for (let i = 1; i <= 3; i++) keep(await ops.compressNative(chain, alice, 100_000_000n * BigInt(i)));
keep(await ops.decompressNative(chain, alice, 50_000_000n));
const { mint, signature } = await ops.createMint(chain, alice, 6);
keep({ signature });
keep(await ops.mintTo(chain, alice, mint, alice.publicKey, 5_000_000n));
keep(await ops.compressToken(chain, alice, mint, 3_000_000n));
keep(await ops.transferCompressed(chain, alice, mint, bob.publicKey, 1_250_000n));
// an account placed as genesis would hold it (a bridge route's mint and a holder's balance)
const placed = Keypair.generate().publicKey;
await chain.localTokens.ensureMint(placed, 9);
await chain.localTokens.credit(placed, Keypair.generate().publicKey, bob.publicKey, 7n);
// a refused transaction still pays its fee
await ops.compressNative(chain, bob, 1n).catch(() => undefined);
await chain.airdrop(bob.publicKey, 1_000_000_000n);
// more than the faucet holds: refused, its fee paid
await chain.airdrop(bob.publicKey, 10n ** 18n).then(
  () => process.exit(3),
  () => undefined,
);
await ops.compressNative(chain, bob, 20_000_000_000n).catch(() => undefined);

const balances = async (owner: PublicKey) => ({
  native: String(await ops.nativeBalance(chain, owner)),
  compressed: String(await ops.compressedNativeBalance(chain, owner)),
  token: String(await ops.tokenBalance(chain, owner, mint)),
  compressedToken: String(await ops.compressedTokenBalance(chain, owner, mint)),
});
const state = {
  alice: alice.publicKey.toBase58(),
  aliceSecret: Buffer.from(alice.secretKey).toString('base64'),
  bob: bob.publicKey.toBase58(),
  mint: mint.toBase58(),
  placed: placed.toBase58(),
  placedData: (await chain.rpc.getAccountInfo(placed))!.data.toString('base64'),
  signatures,
  balances: { alice: await balances(alice.publicKey), bob: await balances(bob.publicKey) },
  slot: await chain.rpc.getSlot(),
};
process.stdout.write(`${JSON.stringify(state)}\n`);
setInterval(() => undefined, 1_000);
