// STARK prover for the session AIR. See protocol.ts for the Fiat–Shamir order.
// Zero knowledge: random trace rows, masked composition segments, and a random FRI randomizer R.
import { P, rootOfUnity, batchInv, randomFelt, feltsToBytes, pow } from './field.ts';
import { type Fp2, eMul, eAdd, eSub, ePow, eInv } from './ext.ts';
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
  compositionAtZ,
  tracePoints,
} from './air.ts';
import { ROUNDS, WIDTH, hashKey } from './rescue.ts';
import {
  newTranscript,
  drawCompositionCoeffs,
  drawOodPoint,
  absorbOod,
  drawDeepCoeffs,
  queryPositions,
  friConfig,
} from './protocol.ts';
import { ByteWriter, writeHeader, writeBody, leafBytes } from './serialize.ts';

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
  xs: bigint[];
  traceCoeffs: bigint[][];
  traceLde: bigint[][];
  traceSalts: Uint8Array[];
  traceTree: MerkleTree;
  alphas: Fp2[];
  betas: Fp2[];
  boundary: BoundaryConstraint[];
  /** Coefficients (re, im) of the composition polynomial H over the LDE domain (length N). */
  hcRe: bigint[];
  hcIm: bigint[];
}

/**
 * The proof in steps, so that a test can run them with a witness that does not satisfy the AIR
 * (the checks that refuse such a witness live in proveStatement only):
 * traceStep -> compositionStep -> oodStep -> finishProof.
 */
export function proveStatement(secretKey: readonly bigint[], stmt: Statement, params: StarkParams, opts: ProveOptions = {}): Uint8Array {
  if (secretKey.length !== 4 || secretKey.some((x) => typeof x !== 'bigint' || x < 0n || x >= P)) {
    throw new Error('prover: secret key must be 4 canonical felts');
  }
  const kh = hashKey(secretKey);
  if (kh.some((v, i) => v !== stmt.keyHash[i])) throw new Error('prover: secret key does not match the key hash');
  const ts = traceStep(secretKey, stmt, params, opts.rand ?? randomFelt);
  for (let i = ts.shape.compositionBound; i < ts.shape.ldeSize; i++) {
    if (ts.hcRe[i] !== 0n || ts.hcIm[i] !== 0n) throw new Error('prover: composition degree too high (witness does not satisfy the AIR)');
  }
  const cs = compositionStep(ts, ts.shape.compositionBound);
  return finishProof(ts, cs, oodStep(ts, cs));
}

/** 1-2. Trace, its low-degree extension and commitment; the composition polynomial H. */
export function traceStep(secretKey: readonly bigint[], stmt: Statement, params: StarkParams, rand: () => bigint): TraceStep {
  const shape = deriveShape(params);
  const { n, ldeSize: N, ldeOffset: s } = shape;
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

  // 2. Composition polynomial H on the LDE domain.
  const { alphas, betas } = drawCompositionCoeffs(t);
  const w = rootOfUnity(N);
  const xs = new Array<bigint>(N);
  xs[0] = s;
  for (let i = 1; i < N; i++) xs[i] = (xs[i - 1] * w) % P;
  const pts = tracePoints(n);
  const zerofier = xs.map((x) => {
    let acc = 1n;
    for (let r = 0; r < ROUNDS; r++) acc = (acc * (x - pts[r] + P)) % P;
    return acc;
  });
  const zInv = batchInv(zerofier);
  const boundary = boundaryConstraints(stmt.keyHash);
  const rows = [...new Set(boundary.map((b) => b.row))];
  const rowInv = new Map(rows.map((r) => [r, batchInv(xs.map((x) => (x - pts[r] + P) % P))]));
  const e = n / ROUNDS;
  const perPeriod = N / e;
  const perCache: bigint[][] = [];
  for (let i = 0; i < perPeriod; i++) perCache.push(periodicAtBase(pow(xs[i], BigInt(e))));
  const hRe = new Array<bigint>(N);
  const hIm = new Array<bigint>(N);
  const cur = new Array<bigint>(WIDTH);
  const next = new Array<bigint>(WIDTH);
  const tr = new Array<bigint>(WIDTH);
  for (let i = 0; i < N; i++) {
    const ni = (i + blowup) % N;
    for (let c = 0; c < WIDTH; c++) {
      cur[c] = traceLde[c][i];
      next[c] = traceLde[c][ni];
    }
    transitionBase(cur, next, perCache[i % perPeriod], tr);
    let a0 = 0n;
    let a1 = 0n;
    for (let c = 0; c < WIDTH; c++) {
      a0 += alphas[c][0] * tr[c];
      a1 += alphas[c][1] * tr[c];
    }
    a0 = ((a0 % P) * zInv[i]) % P;
    a1 = ((a1 % P) * zInv[i]) % P;
    for (let b = 0; b < boundary.length; b++) {
      const bc = boundary[b];
      const q = ((traceLde[bc.col][i] - bc.value + P) * rowInv.get(bc.row)![i]) % P;
      a0 += betas[b][0] * q;
      a1 += betas[b][1] * q;
    }
    hRe[i] = a0 % P;
    hIm[i] = a1 % P;
  }
  return {
    shape, stmt, rand, t, xs, traceCoeffs, traceLde, traceSalts, traceTree, alphas, betas, boundary,
    hcRe: cosetInterpolate(hRe, s),
    hcIm: cosetInterpolate(hIm, s),
  };
}

export interface CompositionStep {
  segRe: bigint[][];
  segIm: bigint[][];
  compLde: bigint[][];
  compSalts: Uint8Array[];
  compTree: MerkleTree;
}

/**
 * 3. Masked segments of H's coefficients below degEnd: H'_j = H_j + a_j - x^d a_{j+1}
 * (a_0 = a_k = 0), so sum_j x^(jd) H'_j = H, plus the FRI randomizer R (degree < n, ext-valued).
 * Committed together.
 */
export function compositionStep(ts: TraceStep, degEnd: number): CompositionStep {
  const { n, ldeSize: N, ldeOffset: s, segments: k, segmentStride: d, maskLength: m } = ts.shape;
  const { hcRe, hcIm, rand } = ts;
  const segLen = (j: number) => (j < k - 1 ? n : Math.max(n, degEnd - (k - 1) * d));
  const segRe: bigint[][] = [];
  const segIm: bigint[][] = [];
  for (let j = 0; j < k; j++) {
    const len = segLen(j);
    const re = new Array<bigint>(len).fill(0n);
    const im = new Array<bigint>(len).fill(0n);
    const end = j < k - 1 ? (j + 1) * d : degEnd;
    for (let i = j * d; i < end; i++) {
      re[i - j * d] = hcRe[i];
      im[i - j * d] = hcIm[i];
    }
    segRe.push(re);
    segIm.push(im);
  }
  for (let j = 1; j < k; j++) {
    for (let i = 0; i < m; i++) {
      const r0 = rand();
      const r1 = rand();
      segRe[j][i] = (segRe[j][i] + r0) % P;
      segIm[j][i] = (segIm[j][i] + r1) % P;
      segRe[j - 1][d + i] = (segRe[j - 1][d + i] - r0 + P) % P;
      segIm[j - 1][d + i] = (segIm[j - 1][d + i] - r1 + P) % P;
    }
  }
  const rRe = Array.from({ length: n }, () => rand());
  const rIm = Array.from({ length: n }, () => rand());
  const compCoeffs: bigint[][] = [];
  for (let j = 0; j < k; j++) compCoeffs.push(segRe[j], segIm[j]);
  compCoeffs.push(rRe, rIm);
  const compLde = compCoeffs.map((c) => cosetEvaluate(c, s, N));
  const compSalts = randomSalts(N / 2, rand);
  const compTree = new MerkleTree(rowPairLeaves(compLde, N / 2, compSalts));
  ts.t.absorb(compTree.root);
  return { segRe, segIm, compLde, compSalts, compTree };
}

export interface OodFrame {
  z: Fp2;
  gz: Fp2;
  tz: Fp2[];
  tgz: Fp2[];
  /** H'_j(z) per segment. */
  hz: Fp2[];
}

/** 4. The out-of-domain point and the frame the prover will send (not yet absorbed). */
export function oodStep(ts: TraceStep, cs: CompositionStep): OodFrame {
  const z = drawOodPoint(ts.t);
  const g = rootOfUnity(ts.shape.n);
  const gz: Fp2 = [(z[0] * g) % P, (z[1] * g) % P];
  return {
    z,
    gz,
    tz: ts.traceCoeffs.map((c) => evalBaseAtExt(c, z)),
    tgz: ts.traceCoeffs.map((c) => evalBaseAtExt(c, gz)),
    hz: cs.segRe.map((re, j) => evalExtAtExt(re, cs.segIm[j], z)),
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

  // 5. DEEP composition over the LDE domain.
  const dc = drawDeepCoeffs(t, WIDTH, k);
  let az: Fp2 = [0n, 0n];
  let bz: Fp2 = [0n, 0n];
  for (let c = 0; c < WIDTH; c++) {
    az = eAdd(az, eMul(dc.gammaZ[c], tz[c]));
    bz = eAdd(bz, eMul(dc.gammaGz[c], tgz[c]));
  }
  for (let j = 0; j < k; j++) az = eAdd(az, eMul(dc.delta[j], hz[j]));
  // 1/(x - z) = ((x - z0) + z1 u) / ((x - z0)^2 - 7 z1^2): one batched base inversion per point.
  const normZ = batchInv(xs.map((x) => ((x - z[0] + P) ** 2n - 7n * z[1] * z[1]) % P + P));
  const normGz = batchInv(xs.map((x) => ((x - gz[0] + P) ** 2n - 7n * gz[1] * gz[1]) % P + P));
  const f0 = new Array<Fp2>(N);
  for (let i = 0; i < N; i++) {
    let a0 = 0n;
    let a1 = 0n;
    let b0 = 0n;
    let b1 = 0n;
    for (let c = 0; c < WIDTH; c++) {
      const v = traceLde[c][i];
      a0 += dc.gammaZ[c][0] * v;
      a1 += dc.gammaZ[c][1] * v;
      b0 += dc.gammaGz[c][0] * v;
      b1 += dc.gammaGz[c][1] * v;
    }
    for (let j = 0; j < k; j++) {
      const h0 = compLde[2 * j][i];
      const h1 = compLde[2 * j + 1][i];
      const [d0, d1] = dc.delta[j];
      a0 += d0 * h0 + 7n * d1 * h1;
      a1 += d0 * h1 + d1 * h0;
    }
    const x = xs[i];
    const A: Fp2 = [(a0 % P - az[0] + P) % P, (a1 % P - az[1] + P) % P];
    const B: Fp2 = [(b0 % P - bz[0] + P) % P, (b1 % P - bz[1] + P) % P];
    const invZ: Fp2 = [((x - z[0] + P) * normZ[i]) % P, (z[1] * normZ[i]) % P];
    const invGz: Fp2 = [((x - gz[0] + P) * normGz[i]) % P, (gz[1] * normGz[i]) % P];
    const R: Fp2 = [compLde[2 * k][i], compLde[2 * k + 1][i]];
    f0[i] = eAdd(eAdd(eMul(A, invZ), eMul(B, invGz)), eMul(dc.eps, R));
  }

  // 6. FRI, grinding, queries.
  const cfg = friConfig(shape);
  const fri = friCommit(f0, cfg, t);
  const nonce = t.powWork(shape.params.grindingBits);
  const positions = queryPositions(t, shape, nonce);
  const { traceTree, traceSalts } = ts;
  const { compTree, compSalts } = cs;

  const rowAt = (cols: readonly bigint[][], p: number) => [...cols.map((c) => c[p]), ...cols.map((c) => c[p + half])];
  const out = new ByteWriter();
  writeHeader(out, {
    traceRoot: traceTree.root,
    compRoot: compTree.root,
    friRoots: fri.layers.map((l) => l.tree.root),
    oodTraceZ: tz,
    oodTraceGz: tgz,
    oodComp: hz,
    remainder: fri.remainder,
    nonce,
  });
  writeBody(out, {
    traceRows: positions.map((p) => rowAt(traceLde, p)),
    traceSalts: positions.map((p) => traceSalts[p]),
    traceNodes: traceTree.openMany(positions),
    compRows: positions.map((p) => rowAt(compLde, p)),
    compSalts: positions.map((p) => compSalts[p]),
    compNodes: compTree.openMany(positions),
    fri: friOpen(fri, positions, cfg),
  });
  return out.finish();
}
