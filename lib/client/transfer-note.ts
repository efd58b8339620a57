import { poseidonHash1, poseidonHash2 } from '#lib/zk/merkle.ts';

/**
 * A shielded-pool note: what a depositor keeps, and all a withdrawal needs. The server never sees
 * it; it receives only the commitment at deposit and the nullifier hash at withdrawal.
 *
 *   nullifier, secret  31 random bytes each (WebCrypto), so both are below the BN254 field order
 *   commitment         Poseidon(nullifier, secret)   appended to the pool's tree at deposit
 *   nullifierHash      Poseidon(nullifier)           revealed once, at withdrawal
 *
 * As a string: `shroud-note:v1:<pool>:<nullifier, 62 hex digits><secret, 62 hex digits>`.
 * Whoever holds the string can withdraw the deposit: store it like a key.
 */
export interface Note {
  pool: string;
  nullifier: bigint;
  secret: bigint;
}

const PREFIX = 'shroud-note:v1:';
const BYTES = 31;

function random31(): bigint {
  const b = globalThis.crypto.getRandomValues(new Uint8Array(BYTES));
  return BigInt(`0x${Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')}`);
}

export function createNote(pool: string): Note {
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(pool)) throw new Error('pool: 1–64 letters, digits, ".", "_" or "-"');
  return { pool, nullifier: random31(), secret: random31() };
}

const hex31 = (x: bigint) => x.toString(16).padStart(BYTES * 2, '0');

export function serializeNote(note: Note): string {
  return `${PREFIX}${note.pool}:${hex31(note.nullifier)}${hex31(note.secret)}`;
}

export class InvalidNote extends Error {
  constructor(reason: string) {
    super(`not a note: ${reason}`);
    this.name = 'InvalidNote';
  }
}

export function parseNote(text: string): Note {
  const s = text.trim();
  if (!s.startsWith(PREFIX)) throw new InvalidNote(`expected "${PREFIX}…"`);
  const m = /^([A-Za-z0-9._-]{1,64}):([0-9a-f]{124})$/.exec(s.slice(PREFIX.length));
  if (!m) throw new InvalidNote('expected <pool>:<124 lower-case hex digits>');
  return { pool: m[1]!, nullifier: BigInt(`0x${m[2]!.slice(0, 62)}`), secret: BigInt(`0x${m[2]!.slice(62)}`) };
}

/** The commitment a deposit sends (decimal). */
export async function noteCommitment(note: Note): Promise<string> {
  return (await poseidonHash2())(note.nullifier, note.secret).toString();
}

/** The nullifier hash a withdrawal reveals (decimal). */
export async function noteNullifierHash(note: Note): Promise<string> {
  return (await poseidonHash1())(note.nullifier).toString();
}
