/**
 * Sent, and the chain has not said whether it landed: the request answers 202 with this hash
 * (lib/moves/journal.ts). A module of its own, so that the wallet's lease (lib/wallets/lock.ts)
 * knows it without loading the journal and the chain libraries.
 */
export class MoveUnsettled extends Error {
  constructor(readonly txHash: string) {
    super(`transaction ${txHash} was sent and is not settled yet`);
    this.name = 'MoveUnsettled';
  }
}
