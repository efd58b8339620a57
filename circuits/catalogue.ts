/**
 * The circuits: what each proves, its public signals in circom's order, its inputs, and a
 * satisfying example that the ceremony proves and verifies once its keys exist. Read by
 * `npm run circuits` (circuits/build.ts) and `npm run ceremony` (circuits/ceremony/cli.ts).
 */

/**
 * 2^13: membership (depth-20 Poseidon tree) has 4,840 constraints; Groth16 in snarkjs needs a
 * domain of at least constraints + public signals + 1, which 2^12 = 4,096 cannot hold.
 */
export const PTAU_POWER = 13;

export interface InputSpec {
  name: string;
  visibility: 'private' | 'public';
  /** Array length for array inputs; absent for scalars. */
  length?: number;
}

export interface CircuitSpec {
  name: string;
  description: string;
  /** Names of publicSignals in order: outputs first, then public inputs (circom's order). */
  publicSignals: string[];
  inputs: InputSpec[];
  /** A satisfying input (or how to compute one), proved and verified at the end of the build as a smoke test. */
  example: Record<string, string | string[]> | (() => Promise<Record<string, string | string[]>>);
}

export const DEPTH = 20;
export const CIRCUITS: CircuitSpec[] = [
  {
    name: 'password',
    description:
      'Knowledge of a password: commitment = Poseidon(pw_lo, pw_hi, salt), where pw_hi/pw_lo are the first/last 16 bytes ' +
      'of SHA-256(UTF-8 password) read as big-endian integers (each < 2^128) and salt is a field element.',
    publicSignals: ['commitment'],
    inputs: [
      { name: 'pw_lo', visibility: 'private' },
      { name: 'pw_hi', visibility: 'private' },
      { name: 'salt', visibility: 'private' },
    ],
    example: { pw_lo: '1', pw_hi: '2', salt: '3' },
  },
  {
    name: 'preimage',
    description: 'Knowledge of a preimage: hash = Poseidon(secret).',
    publicSignals: ['hash'],
    inputs: [{ name: 'secret', visibility: 'private' }],
    example: { secret: '42' },
  },
  {
    name: 'range',
    description: 'A committed value lies in a public range: min <= value <= max (unsigned 64-bit integers), ' + 'commitment = Poseidon(value, blinding).',
    publicSignals: ['commitment', 'min', 'max'],
    inputs: [
      { name: 'value', visibility: 'private' },
      { name: 'blinding', visibility: 'private' },
      { name: 'min', visibility: 'public' },
      { name: 'max', visibility: 'public' },
    ],
    example: { value: '50', blinding: '7', min: '18', max: '120' },
  },
  {
    name: 'membership',
    description:
      `Membership of a leaf in a Poseidon Merkle tree of depth ${DEPTH}: root = fold over levels of ` +
      'Poseidon(left, right), pathIndices[i] = 1 when the node is the right child at level i.',
    publicSignals: ['root'],
    inputs: [
      { name: 'leaf', visibility: 'private' },
      { name: 'pathElements', visibility: 'private', length: DEPTH },
      { name: 'pathIndices', visibility: 'private', length: DEPTH },
    ],
    example: {
      leaf: '5',
      pathElements: Array.from({ length: DEPTH }, (_, i) => String(i + 1)),
      pathIndices: Array.from({ length: DEPTH }, (_, i) => String(i % 2)),
    },
  },
  // Scope-bound variants for attestations (lib/attest): each also outputs nullifier =
  // Poseidon(subject secret, scope), so one subject is attested once per scope.
  {
    name: 'range_scoped',
    description:
      'range with a scope-bound nullifier: min <= value <= max (unsigned 64-bit integers), ' +
      'commitment = Poseidon(value, blinding), nullifier = Poseidon(blinding, scope).',
    publicSignals: ['commitment', 'nullifier', 'min', 'max', 'scope'],
    inputs: [
      { name: 'value', visibility: 'private' },
      { name: 'blinding', visibility: 'private' },
      { name: 'min', visibility: 'public' },
      { name: 'max', visibility: 'public' },
      { name: 'scope', visibility: 'public' },
    ],
    example: { value: '50', blinding: '7', min: '18', max: '120', scope: '9' },
  },
  {
    name: 'preimage_scoped',
    description: 'preimage with a scope-bound nullifier: hash = Poseidon(secret), nullifier = Poseidon(secret, scope).',
    publicSignals: ['hash', 'nullifier', 'scope'],
    inputs: [
      { name: 'secret', visibility: 'private' },
      { name: 'scope', visibility: 'public' },
    ],
    example: { secret: '42', scope: '9' },
  },
  {
    name: 'membership_scoped',
    description:
      `membership with a scope-bound nullifier: the leaf Poseidon(secret) is in a Poseidon Merkle tree of depth ${DEPTH} ` +
      '(as membership), nullifier = Poseidon(secret, scope).',
    publicSignals: ['root', 'nullifier', 'scope'],
    inputs: [
      { name: 'secret', visibility: 'private' },
      { name: 'pathElements', visibility: 'private', length: DEPTH },
      { name: 'pathIndices', visibility: 'private', length: DEPTH },
      { name: 'scope', visibility: 'public' },
    ],
    example: {
      secret: '5',
      pathElements: Array.from({ length: DEPTH }, (_, i) => String(i + 1)),
      pathIndices: Array.from({ length: DEPTH }, (_, i) => String(i % 2)),
      scope: '9',
    },
  },
  {
    name: 'withdraw',
    description:
      `Withdrawal from a shielded pool: commitment = Poseidon(nullifier, secret) is a leaf of a depth-${DEPTH} Poseidon ` +
      'Merkle tree under root, nullifierHash = Poseidon(nullifier); recipient, relayerFee and pool are bound to the proof ' +
      '(squared): pool names the pool the proof is for (lib/transfer/statement.ts poolSignal), so a proof made for one ' +
      'pool is refused by every other; pathIndices[i] = 1 when the node is the right child at level i.',
    publicSignals: ['root', 'nullifierHash', 'recipient', 'relayerFee', 'pool'],
    inputs: [
      { name: 'root', visibility: 'public' },
      { name: 'nullifierHash', visibility: 'public' },
      { name: 'recipient', visibility: 'public' },
      { name: 'relayerFee', visibility: 'public' },
      { name: 'pool', visibility: 'public' },
      { name: 'nullifier', visibility: 'private' },
      { name: 'secret', visibility: 'private' },
      { name: 'pathElements', visibility: 'private', length: DEPTH },
      { name: 'pathIndices', visibility: 'private', length: DEPTH },
    ],
    example: withdrawExample,
  },
];

/** A withdrawal of leaf 0 from a tree whose other leaves are zero (siblings 1, 2, ... stand in for the zero hashes). */
async function withdrawExample(): Promise<Record<string, string | string[]>> {
  const { buildPoseidon } = await import('circomlibjs');
  const poseidon = await buildPoseidon();
  const h = (...xs: bigint[]): bigint => poseidon.F.toObject(poseidon(xs));
  const [nullifier, secret] = [11n, 22n];
  const pathElements = Array.from({ length: DEPTH }, (_, i) => BigInt(i + 1));
  let node = h(nullifier, secret);
  for (const sibling of pathElements) node = h(node, sibling);
  return {
    root: node.toString(),
    nullifierHash: h(nullifier).toString(),
    recipient: '12345',
    relayerFee: '0',
    pool: '678',
    nullifier: nullifier.toString(),
    secret: secret.toString(),
    pathElements: pathElements.map(String),
    pathIndices: Array(DEPTH).fill('0'),
  };
}
