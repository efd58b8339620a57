import { describe, expect, it } from 'vitest';
import { fileSha256, r1csFile } from '../../../circuits/ceremony/files.ts';
import { verifyCircuit } from '../../../circuits/ceremony/phase2.ts';
import { readTranscript } from '../../../circuits/ceremony/transcript.ts';

/**
 * snarkjs `zkey verify` of each committed key against its r1cs and phase 1, and the transcript
 * against both (circuits/ceremony/phase2.ts verifyCircuit). A large key takes 20–40 s on an idle
 * core, so the circuits are shared out between two test files, one per worker.
 */
export function describeCommittedKeys(names: string[]): void {
  describe('the committed keys', () => {
    for (const name of names) {
      it(`${name}: the key checks against its r1cs and phase 1, the verification key is the key's own, the transcript is exact`, async () => {
        expect(await verifyCircuit(name)).toEqual([]);
        const t = readTranscript(name);
        expect(t.kind).toBe('development');
        expect(t.contributions.length).toBeGreaterThanOrEqual(2);
        expect(fileSha256(r1csFile(name))).toBe(t.r1cs.sha256);
      }, 600_000);
    }
  });
}
