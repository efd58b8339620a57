import { ShroudError, type ShroudClient } from './api.ts';
import { sha256Hex } from './file-crypto.ts';

/** A circuit's witness generator and proving key, as snarkjs takes them. */
export interface CircuitArtifacts {
  wasm: Uint8Array;
  zkey: Uint8Array;
}

const cache = new WeakMap<ShroudClient, Map<string, Promise<CircuitArtifacts>>>();

/**
 * A circuit's wasm and zkey from the API itself (`/api/zk-toolkit/proof/circuits/<name>/<artifact>`),
 * each checked against the sha256 the circuit listing gives, once per client: the same code
 * proves in a browser, in the CLI and in tests.
 */
export function circuitArtifacts(client: ShroudClient, circuit: string): Promise<CircuitArtifacts> {
  const mine = cache.get(client) ?? new Map<string, Promise<CircuitArtifacts>>();
  cache.set(client, mine);
  let found = mine.get(circuit);
  if (!found) {
    found = (async () => {
      const { circuits } = await client.api.zkToolkitProofCircuits();
      const listing = circuits.find((c) => c.name === circuit);
      if (!listing) throw new ShroudError('NOT_FOUND', 404, `the server lists no circuit ${circuit}`);
      const fetchChecked = async (kind: 'wasm' | 'zkey') => {
        const bytes = await client.api.zkToolkitProofArtifact({ params: { name: circuit, artifact: kind } });
        const want = listing.artifacts[kind]?.sha256;
        if (!want || (await sha256Hex(bytes)) !== want)
          throw new ShroudError('CHECKSUM_MISMATCH', 422, `the ${kind} artifact of ${circuit} does not match its sha256`);
        return bytes;
      };
      return { wasm: await fetchChecked('wasm'), zkey: await fetchChecked('zkey') };
    })();
    found.catch(() => mine.delete(circuit));
    mine.set(circuit, found);
  }
  return found;
}
