import { errors } from '#lib/errors.ts';
import { getCircuit } from '#lib/zk/circuits.ts';
import { DECIMAL_RULE, isCanonicalDecimal, isCanonicalUuid, UUID_RULE } from './canonical.ts';
import { scopeSignal, uuidField } from './fields.ts';

/**
 * The attestation schemas: each names its circuit (a scope-bound variant, which outputs the
 * nullifier Poseidon(subject secret, scope)) and says, for every public signal, who fixes it:
 *   - `schema`:   a constant of the schema (e.g. the lower bound 18 of "age ≥ 18"), not the prover's choice;
 *   - `subject`:  the prover's (a commitment, a hash, a bound of a free range): it goes into the claims;
 *   - `nullifier`: Poseidon(secret, scope), unique per subject and scope;
 *   - `scope`:    must equal scopeSignal(schema, scope) for the request's scope;
 *   - `group-root`: must be one of the latest roots of the request's group.
 */
export type SignalSource = 'schema' | 'subject' | 'nullifier' | 'scope' | 'group-root';

export interface SignalSpec {
  name: string;
  source: SignalSource;
  /** The fixed value of a `schema` signal (decimal). */
  value?: string;
}

export interface SchemaDef {
  id: string;
  title: string;
  description: string;
  circuit: string;
  signals: SignalSpec[];
  /** The claim names, in the order their values enter the signed hash. */
  claimNames: string[];
  /** Whether the request names a group (`group`). */
  needsGroup: boolean;
}

const MAX_U64 = (2n ** 64n - 1n).toString();

export const SCHEMAS: readonly SchemaDef[] = [
  {
    id: 'age-over-18',
    title: 'Age 18 or over',
    description:
      "The subject knows an age committed as Poseidon(age, blinding) with 18 <= age <= 150. The bounds are the schema's: a proof " +
      'with any other bound is refused (SCHEMA_MISMATCH). The age stays hidden; the commitment is in the claims.',
    circuit: 'range_scoped',
    signals: [
      { name: 'commitment', source: 'subject' },
      { name: 'nullifier', source: 'nullifier' },
      { name: 'min', source: 'schema', value: '18' },
      { name: 'max', source: 'schema', value: '150' },
      { name: 'scope', source: 'scope' },
    ],
    claimNames: ['commitment', 'min', 'max'],
    needsGroup: false,
  },
  {
    id: 'range',
    title: 'Committed value within bounds',
    description:
      `The subject knows a value committed as Poseidon(value, blinding) with min <= value <= max (unsigned 64-bit, max <= ${MAX_U64}); ` +
      "min and max are the subject's and are stated in the claims. The value stays hidden.",
    circuit: 'range_scoped',
    signals: [
      { name: 'commitment', source: 'subject' },
      { name: 'nullifier', source: 'nullifier' },
      { name: 'min', source: 'subject' },
      { name: 'max', source: 'subject' },
      { name: 'scope', source: 'scope' },
    ],
    claimNames: ['commitment', 'min', 'max'],
    needsGroup: false,
  },
  {
    id: 'group-member',
    title: 'Member of a group',
    description:
      "The subject knows the secret behind an identity commitment Poseidon(secret) in the group's Merkle tree (depth 20) at one of " +
      'its latest roots. Which member is hidden; the group and the root are in the claims.',
    circuit: 'membership_scoped',
    signals: [
      { name: 'root', source: 'group-root' },
      { name: 'nullifier', source: 'nullifier' },
      { name: 'scope', source: 'scope' },
    ],
    claimNames: ['group', 'root'],
    needsGroup: true,
  },
  {
    id: 'preimage',
    title: 'Knowledge of a preimage',
    description: 'The subject knows a secret whose Poseidon hash is the `hash` in the claims. The secret stays hidden.',
    circuit: 'preimage_scoped',
    signals: [
      { name: 'hash', source: 'subject' },
      { name: 'nullifier', source: 'nullifier' },
      { name: 'scope', source: 'scope' },
    ],
    claimNames: ['hash'],
    needsGroup: false,
  },
];

export function getSchema(id: string): SchemaDef {
  const s = SCHEMAS.find((x) => x.id === id);
  if (!s) throw errors.invalidInput(`schema: unknown schema ${id.slice(0, 64)} (GET /api/attest/schemas)`);
  return s;
}

/** The schema as `GET /api/attest/schemas` lists it. */
export function describeSchema(s: SchemaDef) {
  const manifest = getCircuit(s.circuit);
  return {
    id: s.id,
    title: s.title,
    description: s.description,
    circuit: s.circuit,
    vkHash: manifest.artifacts.vkey.sha256,
    publicSignals: manifest.publicSignals.map((name, index) => {
      const spec = s.signals.find((x) => x.name === name)!;
      return { index, name, source: spec.source, ...(spec.value !== undefined ? { value: spec.value } : {}) };
    }),
    claims: s.claimNames,
    needsGroup: s.needsGroup,
    artifacts: {
      wasm: `/api/zk-toolkit/proof/circuits/${s.circuit}/wasm`,
      zkey: `/api/zk-toolkit/proof/circuits/${s.circuit}/zkey`,
      vkey: `/api/zk-toolkit/proof/circuits/${s.circuit}/vkey`,
    },
  };
}

export interface CheckedSignals {
  claims: Record<string, string>;
  nullifier: string;
  scopeSignal: bigint;
  /** The root a membership proof used (checked against the group by the caller). */
  root?: string;
}

/**
 * Every schema-bound signal against the schema and the request: a constant that differs, a scope
 * signal of another scope or schema → SCHEMA_MISMATCH naming the signal. Well-formedness (count,
 * decimal, below r) is checked before (verifyProof checks it again).
 */
export function checkSignals(s: SchemaDef, publicSignals: string[], scope: string, group?: string): CheckedSignals {
  const names = getCircuit(s.circuit).publicSignals;
  if (publicSignals.length !== names.length) {
    throw errors.schemaMismatch(`publicSignals: the schema ${s.id} (circuit ${s.circuit}) has ${names.length} public signals, got ${publicSignals.length}`);
  }
  const byName = Object.fromEntries(names.map((n, i) => [n, publicSignals[i]!]));
  const expectedScope = scopeSignal(s.id, scope);
  const claims: Record<string, string> = {};
  let root: string | undefined;
  for (const spec of s.signals) {
    const v = byName[spec.name]!;
    if (BigInt(v).toString() !== v) throw errors.schemaMismatch(`publicSignals: ${spec.name} must be a canonical decimal`);
    if (spec.source === 'schema' && v !== spec.value) {
      throw errors.schemaMismatch(`publicSignals: ${spec.name} must be ${spec.value} for the schema ${s.id}, got ${v.slice(0, 80)}`);
    }
    if (spec.source === 'scope' && BigInt(v) !== expectedScope) {
      throw errors.schemaMismatch(`publicSignals: scope is not the scope signal of schema ${s.id} and scope "${scope}"`);
    }
    if (spec.source === 'group-root') root = v;
  }
  for (const name of s.claimNames) claims[name] = name === 'group' ? group! : byName[name]!;
  return { claims, nullifier: byName.nullifier!, scopeSignal: expectedScope, ...(root ? { root } : {}) };
}

/** The claims as field elements, in the schema's order (a group id is its uuid's 128 bits); each value in its canonical form (lib/attest/canonical.ts). */
export function claimFields(s: SchemaDef, claims: Record<string, string>): bigint[] {
  return s.claimNames.map((name) => {
    const v = claims[name];
    if (v === undefined) throw errors.invalidInput(`attestation.claims: missing ${name}`);
    if (name === 'group') {
      if (!isCanonicalUuid(v)) throw errors.invalidInput(`attestation.claims.group: must be ${UUID_RULE}`);
      return uuidField(v);
    }
    if (!isCanonicalDecimal(v)) throw errors.invalidInput(`attestation.claims.${name}: must be ${DECIMAL_RULE}`);
    return BigInt(v);
  });
}

/** The claims name exactly the schema's claims. */
export function checkClaimsShape(s: SchemaDef, claims: Record<string, string>): boolean {
  const keys = Object.keys(claims).sort();
  const want = [...s.claimNames].sort();
  return keys.length === want.length && keys.every((k, i) => k === want[i]);
}
