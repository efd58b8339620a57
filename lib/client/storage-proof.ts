import * as dagPb from '@ipld/dag-pb';
import { CID } from 'multiformats/cid';
import { sha256 } from 'multiformats/hashes/sha2';

/**
 * Storage proofs of replicated pins (`GET /api/storage/replica/status/:cid` → `storageProof`),
 * checkable by anyone who holds the root CID: no key, no server, no trust in the service beyond
 * the replicas' answers themselves. Runs in browsers and in Node (multiformats' SHA-256).
 *
 * Binary layout, hex-encoded (integers big-endian):
 *
 *   "SRP1"                     4 bytes, magic and version
 *   challenge                  32 bytes
 *   root CID                   u16 length, bytes (binary CID)
 *   replica count              u8
 *   per replica:
 *     target name              u8 length, UTF-8
 *     answered at              u64, epoch milliseconds
 *     node count               u8 (the path from the root down to the chosen block, both included)
 *     per node                 u32 length, the block's bytes
 *
 * The chosen block is not the prover's choice: at every dag-pb node on the way down, the link
 * taken is `u32(SHA-256(challenge ‖ name ‖ u8(depth))[0..4]) mod links`, until a raw leaf (or a
 * node without links). A verifier re-derives the path, and checks that node 0 hashes to the root
 * CID and every further node hashes to the CID of the link its parent names.
 */
export const PROOF_MAGIC = 'SRP1';
const DAG_PB = 0x70;
const RAW = 0x55;
const SHA2_256 = 0x12;

export interface ReplicaAnswer {
  name: string;
  atMs: number;
  /** The blocks from the root to the chosen block, root first. */
  nodes: Uint8Array[];
}

export interface StorageProof {
  challenge: Uint8Array;
  root: CID;
  replicas: ReplicaAnswer[];
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
export function toHex(b: Uint8Array): string {
  const out = new Array<string>(b.length);
  for (let i = 0; i < b.length; i++) out[i] = HEX[b[i]!]!;
  return out.join('');
}
const nibble = (c: number): number => {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  throw new Error('not hex');
};
export function fromHex(s: string): Uint8Array {
  if (s.length % 2) throw new Error('not hex');
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = (nibble(s.charCodeAt(2 * i)) << 4) | nibble(s.charCodeAt(2 * i + 1));
  return out;
}

/** The index of the link taken at `depth` below the root for replica `name` under `challenge`. */
export async function linkChoice(challenge: Uint8Array, name: string, depth: number, links: number): Promise<number> {
  const n = utf8.encode(name);
  const input = new Uint8Array(challenge.length + n.length + 1);
  input.set(challenge, 0);
  input.set(n, challenge.length);
  input[input.length - 1] = depth & 0xff;
  const d = (await sha256.digest(input)).digest;
  return (((d[0]! << 24) | (d[1]! << 16) | (d[2]! << 8) | d[3]!) >>> 0) % links;
}

/** The links of a dag-pb node (none for a raw block). */
export const linksOf = (cid: CID, bytes: Uint8Array): CID[] => (cid.code === DAG_PB ? dagPb.decode(bytes).Links.map((l) => l.Hash) : []);

export function encodeStorageProof(p: StorageProof): string {
  const parts: Uint8Array[] = [utf8.encode(PROOF_MAGIC), p.challenge];
  const u8 = (n: number) => Uint8Array.of(n);
  const u16 = (n: number) => Uint8Array.of(n >> 8, n & 0xff);
  const u32 = (n: number) => Uint8Array.of(n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
  const u64 = (n: number) => {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, BigInt(n));
    return b;
  };
  parts.push(u16(p.root.bytes.length), p.root.bytes, u8(p.replicas.length));
  for (const r of p.replicas) {
    const name = utf8.encode(r.name);
    parts.push(u8(name.length), name, u64(r.atMs), u8(r.nodes.length));
    for (const node of r.nodes) parts.push(u32(node.length), node);
  }
  const out = new Uint8Array(parts.reduce((s, x) => s + x.length, 0));
  let at = 0;
  for (const x of parts) {
    out.set(x, at);
    at += x.length;
  }
  return toHex(out);
}

export function decodeStorageProof(hex: string): StorageProof {
  const b = fromHex(hex);
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let at = 0;
  const take = (n: number) => {
    if (at + n > b.length) throw new Error('proof truncated');
    const s = b.subarray(at, at + n);
    at += n;
    return s;
  };
  const u8 = () => take(1)[0]!;
  const u16 = () => {
    take(2);
    return view.getUint16(at - 2);
  };
  const u32 = () => {
    take(4);
    return view.getUint32(at - 4);
  };
  const u64 = () => {
    take(8);
    return Number(view.getBigUint64(at - 8));
  };
  if (fromUtf8.decode(take(4)) !== PROOF_MAGIC) throw new Error('not a storage proof (magic)');
  const challenge = take(32);
  const root = CID.decode(take(u16()));
  const replicas: ReplicaAnswer[] = [];
  for (let i = u8(); i > 0; i--) {
    const name = fromUtf8.decode(take(u8()));
    const atMs = u64();
    const nodes: Uint8Array[] = [];
    for (let j = u8(); j > 0; j--) nodes.push(take(u32()));
    replicas.push({ name, atMs, nodes });
  }
  if (at !== b.length) throw new Error('trailing bytes after the proof');
  return { challenge, root, replicas };
}

export interface ProofCheck {
  valid: boolean;
  /** Why not, when not valid. */
  reason?: string;
  replicas: { name: string; atMs: number; block: string }[];
}

async function hashesTo(cid: CID, bytes: Uint8Array): Promise<boolean> {
  if (cid.multihash.code !== SHA2_256) return false;
  const d = (await sha256.digest(bytes)).digest;
  const want = cid.multihash.digest;
  return d.length === want.length && d.every((x, i) => x === want[i]);
}

/** One replica's answer: the path the challenge selects, every node hashing to its CID. The chosen block's CID. */
async function checkAnswer(root: CID, challenge: Uint8Array, r: ReplicaAnswer): Promise<string> {
  let cid = root;
  for (let depth = 0; ; depth++) {
    const bytes = r.nodes[depth];
    if (!bytes) throw new Error(`${r.name}: path ends before a leaf`);
    if (!(await hashesTo(cid, bytes))) throw new Error(`${r.name}: block at depth ${depth} does not hash to ${cid}`);
    if (cid.code !== DAG_PB && cid.code !== RAW) throw new Error(`${r.name}: unexpected codec ${cid.code}`);
    const links = linksOf(cid, bytes);
    if (!links.length) {
      if (depth !== r.nodes.length - 1) throw new Error(`${r.name}: extra nodes after the leaf`);
      return cid.toString();
    }
    cid = links[await linkChoice(challenge, r.name, depth, links.length)]!;
  }
}

/**
 * Verifies a storage proof for `cid`. `challenge` (hex), when given, must be the proof's (the
 * caller's own fresh challenge); `minReplicas` distinct replicas must have answered.
 */
export async function verifyStorageProof(hex: string, expect: { cid: string; challenge?: string; minReplicas?: number }): Promise<ProofCheck> {
  const replicas: ProofCheck['replicas'] = [];
  try {
    const p = decodeStorageProof(hex);
    if (!p.root.equals(CID.parse(expect.cid))) throw new Error('proof is for another CID');
    if (expect.challenge !== undefined && toHex(p.challenge) !== expect.challenge.toLowerCase()) throw new Error('proof answers another challenge');
    const names = new Set(p.replicas.map((r) => r.name));
    if (names.size !== p.replicas.length) throw new Error('a replica answers twice');
    if (p.replicas.length < (expect.minReplicas ?? 1)) throw new Error(`${p.replicas.length} replicas answered, ${expect.minReplicas} required`);
    for (const r of p.replicas) replicas.push({ name: r.name, atMs: r.atMs, block: await checkAnswer(p.root, p.challenge, r) });
    return { valid: true, replicas };
  } catch (e) {
    return { valid: false, reason: (e as Error).message, replicas };
  }
}
