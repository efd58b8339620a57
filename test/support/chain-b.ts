/**
 * Chain B's answer lost once an INVOKE went out (the local ledger's store timing out mid-write, as
 * a node gone after the send): `landed` says whether the transaction was applied all the same.
 * Loads the chain B module lazily: a test file's runtime sets the environment first.
 */
export async function withLostChainBAnswer<T>(landed: boolean, fn: () => Promise<T>): Promise<T> {
  const ledger = (await import('#lib/local/chain-b/ledger.ts')).localLedger();
  const real = ledger.invoke;
  ledger.invoke = async (tx) => {
    if (landed) await real.call(ledger, tx);
    throw Object.assign(new Error('connect ETIMEDOUT'), { name: 'TimeoutError' });
  };
  try {
    return await fn();
  } finally {
    ledger.invoke = real;
  }
}
