// STARK prover for the session AIR. See protocol.ts for the Fiat–Shamir order.
// Zero knowledge: random trace rows, masked composition segments, and a random FRI randomizer R.
// Pure TypeScript with WebCrypto randomness: the same code proves on the server and in browsers.
import { P as MODULUS, rootOfUnity, batchInv, randomFelt, feltsToBytes, pow } from './field.ts';
import { type Fp3, eMul, eAdd, eBatchInv, EXT_DEGREE } from './ext.ts';
import { intt, cosetEvaluate, cosetInterpolate, evalBaseAtExt, evalExtAtExt } from './poly.ts';
import { MerkleTree } from './merkle.ts';
import { friCommit, friOpen } from './fri.ts';
import { deriveShape, type StarkParams, type ProofShape } from './params.ts';
import type { Transcript } from './transcript.ts';
import {
  type Statement,
  type BoundaryConstraint,
  buildTrace,
  boundaryConstraints,
  statementFelts,
  periodicAtBase,
  transitionBase,
  tracePoints,
  PERIOD,
} from './air.ts';
import { ROUNDS, WIDTH, KEY_FELTS, hashKey } from './rpo.ts';
import { newTranscript, drawCompositionCoeffs, drawOodPoint, absorbOod, drawDeepCoeffs, deepAt, queryPositions, friConfig } from './protocol.ts';
import { ByteWriter, writeHeader, writeBody, leafBytes } from './serialize.ts';

// A module-local copy: hot loops read it as a plain constant, not through an import binding.
const P = MODULUS;

export interface ProveOptions {
  /** Source of the zero-knowledge randomness (tests inject a fixed one to show what it changes). */
  rand?: () => bigint;
}

/** Leaf j = salt_j || row j || row j + N/2 (the x, -x pair FRI folds together). */
function rowPairLeaves(cols: readonly bigint[][], half: number, salts: readonly Uint8Array[]): Uint8Array[] {
  const leaves: Uint8Array[] = new Array(half);
  for (let j = 0; j < half; j++) {
    const row: bigint[] = [];
    for (const c of cols) row.push(c[j]);
    for (const c of cols) row.push(c[j + half]);
    leaves[j] = leafBytes(salts[j], row);
  }
  return leaves;
}

/** Hiding commitments: 16 random salt bytes per leaf, so sibling hashes reveal nothing about unopened rows. */
function randomSalts(count: number, rand: () => bigint): Uint8Array[] {
  return Array.from({ length: count }, () => feltsToBytes([rand(), rand()]));
}

/** Everything the later proof steps need from the trace and composition steps. */
export interface TraceStep {
  shape: ProofShape;
  stmt: Statement;
  rand: () => bigint;
  t: Transcript;
  /** The LDE domain s·w_N^i. */
  xs: bigint[];
  traceCoeffs: bigint[][];
  traceLde: bigint[][];
  traceSalts: Uint8Array[];
  traceTree: MerkleTree;
  alphas: Fp3[];
  betas: Fp3[];
  boundary: BoundaryConstraint[];
  /** The 3 coordinate coefficient vectors of the composition polynomial H (length shape.compositionDomain). */
  hc: bigint[][];
}

/**
 * The proof in steps, so that a test can run them with a witness that does not satisfy the AIR
 * (the checks that refuse such a witness live here only):
 * traceStep -> compositionStep -> oodStep -> finishProof.
 */
export function proveStatement(secretKey: readonly bigint[], stmt: Statement, params: StarkParams, opts: ProveOptions = {}): Uint8Array {
  if (secretKey.length !== KEY_FELTS || secretKey.some((x) => typeof x !== 'bigint' || x < 0n || x >= P)) {
    throw new Error('prover: secret key must be 4 canonical felts');
  }
  const kh = hashKey(secretKey);
  if (kh.some((v, i) => v !== stmt.keyHash[i])) throw new Error('prover: secret key does not match the key hash');
  const ts = traceStep(secretKey, stmt, params, opts.rand ?? randomFelt);
  const bound = ts.shape.compositionBound;
  if (ts.hc.some((c) => c.slice(bound).some((v) => v !== 0n))) {
    throw new Error('prover: composition degree too high (witness does not satisfy the AIR)');
  }
  const cs = compositionStep(ts, bound);
  return finishProof(ts, cs, oodStep(ts, cs));
}

/** 1-2. Trace, its low-degree extension and commitment; the composition polynomial H. */
export function traceStep(secretKey: readonly bigint[], stmt: Statement, params: StarkParams, rand: () => bigint): TraceStep {
  const shape = deriveShape(params);
  const { n, ldeSize: N, ldeOffset: s, compositionDomain: C } = shape;
  const blowup = params.blowup;
  const half = N / 2;
  const t = newTranscript(shape, statementFelts(stmt));

  // 1. Trace, its low-degree extension over the coset s·<w_N>, and its commitment.
  const traceCols = buildTrace(secretKey, n, rand);
  const traceCoeffs = traceCols.map((c) => intt(c));
  const traceLde = traceCoeffs.map((c) => cosetEvaluate(c, s, N));
  const traceSalts = randomSalts(half, rand);
  const traceTree = new MerkleTree(rowPairLeaves(traceLde, half, traceSalts));
  t.absorb(traceTree.root);

  // 2. Composition polynomial H, evaluated on the coset s·<w_C> (every (N/C)-th LDE point),
  //    which is large enough for its degree, then interpolated.
  const { alphas, betas } = drawCompositionCoeffs(t);
  const w = rootOfUnity(N);
  const xs = new Array<bigint>(N);
  xs[0] = s;
  for (let i = 1; i < N; i++) xs[i] = (xs[i - 1] * w) % P;
  const step = N / C;
  const cxs = Array.from({ length: C }, (_, i) => xs[i * step]);
  const pts = tracePoints(n);
  const zInv = batchInv(
    cxs.map((x) => {
      let acc = 1n;
      for (let r = 0; r < ROUNDS; r++) acc = (acc * (x - pts[r] + P)) % P;
      return acc;
    }),
  );
  const boundary = boundaryConstraints(stmt.keyHash);
  const rows = [...new Set(boundary.map((b) => b.row))];
  const rowInv = new Map(rows.map((r) => [r, batchInv(cxs.map((x) => (x - pts[r] + P) % P))]));
  const e = n / PERIOD;
  const perPeriod = C / e;
  const perCache: bigint[][] = [];
  for (let i = 0; i < perPeriod; i++) perCache.push(periodicAtBase(pow(cxs[i], BigInt(e))));
  const h = [new Array<bigint>(C), new Array<bigint>(C), new Array<bigint>(C)];
  const cur = new Array<bigint>(WIDTH);
  const next = new Array<bigint>(WIDTH);
  const tr = new Array<bigint>(WIDTH);
  for (let ci = 0; ci < C; ci++) {
    const i = ci * step;
    const ni = (i + blowup) % N;
    for (let c = 0; c < WIDTH; c++) {
      cur[c] = traceLde[c][i];
      next[c] = traceLde[c][ni];
    }
    transitionBase(cur, next, perCache[ci % perPeriod], tr);
    let a0 = 0n;
    let a1 = 0n;
    let a2 = 0n;
    for (let c = 0; c < WIDTH; c++) {
      a0 += alphas[c][0] * tr[c];
      a1 += alphas[c][1] * tr[c];
      a2 += alphas[c][2] * tr[c];
    }
    const zi = zInv[ci];
    a0 = ((a0 % P) * zi) % P;
    a1 = ((a1 % P) * zi) % P;
    a2 = ((a2 % P) * zi) % P;
    for (let b = 0; b < boundary.length; b++) {
      const bc = boundary[b];
      const q = ((traceLde[bc.col][i] - bc.value + P) * rowInv.get(bc.row)![ci]) % P;
      a0 += betas[b][0] * q;
      a1 += betas[b][1] * q;
      a2 += betas[b][2] * q;
    }
    h[0][ci] = a0 % P;
    h[1][ci] = a1 % P;
    h[2][ci] = a2 % P;
  }
  return { shape, stmt, rand, t, xs, traceCoeffs, traceLde, traceSalts, traceTree, alphas, betas, boundary, hc: h.map((v) => cosetInterpolate(v, s)) };
}

export interface CompositionStep {
  /** seg[j][coord]: coefficient vectors of segment j's 3 coordinates. */
  seg: bigint[][][];
  compLde: bigint[][];
  compSalts: Uint8Array[];
  compTree: MerkleTree;
}

/**
 * 3. Masked segments of H's coefficients below degEnd: H'_j = H_j + a_j − x^d a_{j+1}
 * (a_0 = a_k = 0), so sum_j x^(jd) H'_j = H, plus the FRI randomizer R (degree < n, ext-valued).
 * Committed together, 3 base columns per extension-valued polynomial.
 */
export function compositionStep(ts: TraceStep, degEnd: number): CompositionStep {
  const { n, ldeSize: N, ldeOffset: s, segments: k, segmentStride: d, maskLength: m } = ts.shape;
  const { hc, rand } = ts;
  const seg: bigint[][][] = [];
  for (let j = 0; j < k; j++) {
    const len = j < k - 1 ? n : Math.max(n, degEnd - (k - 1) * d);
    const end = j < k - 1 ? (j + 1) * d : degEnd;
    seg.push(
      hc.map((coord) => {
        const out = new Array<bigint>(len).fill(0n);
        for (let i = j * d; i < end; i++) out[i - j * d] = coord[i];
        return out;
      }),
    );
  }
  for (let j = 1; j < k; j++) {
    for (let i = 0; i < m; i++) {
      for (let c = 0; c < EXT_DEGREE; c++) {
        const r = rand();
        seg[j][c][i] = (seg[j][c][i] + r) % P;
        seg[j - 1][c][d + i] = (seg[j - 1][c][d + i] - r + P) % P;
      }
    }
  }
  const randomizer = Array.from({ length: EXT_DEGREE }, () => Array.from({ length: n }, () => rand()));
  const compCoeffs = [...seg.flat(), ...randomizer];
  const compLde = compCoeffs.map((c) => cosetEvaluate(c, s, N));
  const compSalts = randomSalts(N / 2, rand);
  const compTree = new MerkleTree(rowPairLeaves(compLde, N / 2, compSalts));
  ts.t.absorb(compTree.root);
  return { seg, compLde, compSalts, compTree };
}

export interface OodFrame {
  z: Fp3;
  gz: Fp3;
  tz: Fp3[];
  tgz: Fp3[];
  /** H'_j(z) per segment. */
  hz: Fp3[];
}

/** 4. The out-of-domain point and the frame the prover will send (not yet absorbed). */
export function oodStep(ts: TraceStep, cs: CompositionStep): OodFrame {
  const z = drawOodPoint(ts.t);
  const g = rootOfUnity(ts.shape.n);
  const gz: Fp3 = [(z[0] * g) % P, (z[1] * g) % P, (z[2] * g) % P];
  return {
    z,
    gz,
    tz: ts.traceCoeffs.map((c) => evalBaseAtExt(c, z)),
    tgz: ts.traceCoeffs.map((c) => evalBaseAtExt(c, gz)),
    hz: cs.seg.map((c) => evalExtAtExt(c[0], c[1], c[2], z)),
  };
}

/** 5-6. Absorb the frame, DEEP composition, FRI, grinding, queries, serialization. */
export function finishProof(ts: TraceStep, cs: CompositionStep, frame: OodFrame): Uint8Array {
  const { shape, t, xs, traceLde } = ts;
  const { ldeSize: N, segments: k } = shape;
  const half = N / 2;
  const { compLde } = cs;
  const { z, gz, tz, tgz, hz } = frame;
  absorbOod(t, tz, tgz, hz);

  // 5. DEEP composition over the LDE domain:
  // F(x) = [sum_c gZ_c (t_c(x) - t_c(z)) + sum_j d_j (H'_j(x) - H'_j(z))] / (x - z)
  //      + [sum_c gGz_c (t_c(x) - t_c(g z))] / (x - g z) + eps R(x).
  const dc = drawDeepCoeffs(t, WIDTH, k);
  let az: Fp3 = [0n, 0n, 0n];
  let bz: Fp3 = [0n, 0n, 0n];
  for (let c = 0; c < WIDTH; c++) {
    az = eAdd(az, eMul(dc.gammaZ[c], tz[c]));
    bz = eAdd(bz, eMul(dc.gammaGz[c], tgz[c]));
  }
  for (let j = 0; j < k; j++) az = eAdd(az, eMul(dc.delta[j], hz[j]));
  const invZ = eBatchInv(xs.map((x) => [(x - z[0] + P) % P, (P - z[1]) % P, (P - z[2]) % P] as Fp3));
  const invGz = eBatchInv(xs.map((x) => [(x - gz[0] + P) % P, (P - gz[1]) % P, (P - gz[2]) % P] as Fp3));
  // The verifier's own formula (protocol.ts deepAt) at every point of the LDE, on one row buffer.
  const f0 = new Array<Fp3>(N);
  const tRow = new Array<bigint>(WIDTH);
  const cRow = new Array<bigint>(compLde.length);
  const ood = { az, bz };
  for (let i = 0; i < N; i++) {
    for (let c = 0; c < WIDTH; c++) tRow[c] = traceLde[c][i];
    for (let c = 0; c < compLde.length; c++) cRow[c] = compLde[c][i];
    f0[i] = deepAt(tRow, 0, cRow, 0, k, invZ[i], invGz[i], ood, dc);
  }

  // 6. FRI, grinding, queries.
  const cfg = friConfig(shape);
  const fri = friCommit(f0, cfg, t);
  const nonce = t.powWork(shape.params.grindingBits);
  const positions = queryPositions(t, shape, nonce);

  const rowAt = (cols: readonly bigint[][], p: number) => [...cols.map((c) => c[p]), ...cols.map((c) => c[p + half])];
  const out = new ByteWriter();
  writeHeader(out, {
    traceRoot: ts.traceTree.root,
    compRoot: cs.compTree.root,
    friRoots: fri.layers.map((l) => l.tree.root),
    oodTraceZ: tz,
    oodTraceGz: tgz,
    oodComp: hz,
    remainder: fri.remainder,
    nonce,
  });
  writeBody(out, {
    traceRows: positions.map((p) => rowAt(traceLde, p)),
    traceSalts: positions.map((p) => ts.traceSalts[p]),
    traceNodes: ts.traceTree.openMany(positions),
    compRows: positions.map((p) => rowAt(compLde, p)),
    compSalts: positions.map((p) => cs.compSalts[p]),
    compNodes: cs.compTree.openMany(positions),
    fri: friOpen(fri, positions, cfg),
  });
  return out.finish();
}
