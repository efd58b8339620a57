/** The fee chain A charged for a transaction (lamports) and the points the rewards rule gives for it (lib/rewards/rules.ts). */
export async function feeOf(txHash: string): Promise<{ fee: bigint; points: number }> {
  const { chainA } = await import('#lib/chains/chain-a/index.ts');
  const { pointsFor } = await import('#lib/rewards/rules.ts');
  const tx = await (await chainA()).rpc.getTransaction(txHash, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
  if (!tx?.meta) throw new Error(`no transaction ${txHash}`);
  const fee = BigInt(tx.meta.fee);
  return { fee, points: pointsFor(fee) };
}
