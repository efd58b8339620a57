// Rescue-Prime Optimized (RPO) over Goldilocks, as specified in "RPO: Rescue-Prime Optimized"
// (Ashur, Kindi, Meier, Szepieniec, Threadbare; eprint 2022/1577) and implemented in Polygon
// Miden's miden-crypto (src/hash/rescue): state width 12 (capacity 0..3, rate 4..11), 7 rounds,
// S-box x^7 and its inverse. The MDS matrix and round constants below are the published ones,
// copied from miden-crypto (commit aa45474, src/hash/rescue/{mod.rs,mds/mod.rs}); the published
// test vectors are reproduced in test/unit/stark/rpo.test.ts. Pure TypeScript (runs in browsers).
import { P as MODULUS, pow } from './field.ts';

// A module-local copy: hot loops read it as a plain constant, not through an import binding.
const P = MODULUS;

export const WIDTH = 12;
export const CAPACITY = 4;
export const RATE = 8;
/** The rate lanes 4..11; the digest is lanes 4..7. */
export const RATE_START = 4;
export const DIGEST_START = 4;
export const DIGEST_SIZE = 4;
export const ROUNDS = 7;
export const ALPHA = 7n;
/** 7^-1 mod (p - 1) (miden-crypto's INV_ALPHA). */
export const INV_ALPHA = 10540996611094048183n;

/** The MDS matrix is circulant: MDS[i][j] = MDS_FIRST_ROW[(j - i) mod 12]. */
export const MDS_FIRST_ROW = [7n, 23n, 8n, 26n, 13n, 10n, 9n, 7n, 6n, 22n, 21n, 8n];
export const MDS: bigint[][] = Array.from({ length: WIDTH }, (_, i) => Array.from({ length: WIDTH }, (_, j) => MDS_FIRST_ROW[(j - i + WIDTH) % WIDTH]));
/** Round constants added before the x^7 half-round. */
export const ARK1: bigint[][] = [
  [
    5789762306288267392n,
    6522564764413701783n,
    17809893479458208203n,
    107145243989736508n,
    6388978042437517382n,
    15844067734406016715n,
    9975000513555218239n,
    3344984123768313364n,
    9959189626657347191n,
    12960773468763563665n,
    9602914297752488475n,
    16657542370200465908n,
  ],
  [
    12987190162843096997n,
    653957632802705281n,
    4441654670647621225n,
    4038207883745915761n,
    5613464648874830118n,
    13222989726778338773n,
    3037761201230264149n,
    16683759727265180203n,
    8337364536491240715n,
    3227397518293416448n,
    8110510111539674682n,
    2872078294163232137n,
  ],
  [
    18072785500942327487n,
    6200974112677013481n,
    17682092219085884187n,
    10599526828986756440n,
    975003873302957338n,
    8264241093196931281n,
    10065763900435475170n,
    2181131744534710197n,
    6317303992309418647n,
    1401440938888741532n,
    8884468225181997494n,
    13066900325715521532n,
  ],
  [
    5674685213610121970n,
    5759084860419474071n,
    13943282657648897737n,
    1352748651966375394n,
    17110913224029905221n,
    1003883795902368422n,
    4141870621881018291n,
    8121410972417424656n,
    14300518605864919529n,
    13712227150607670181n,
    17021852944633065291n,
    6252096473787587650n,
  ],
  [
    4887609836208846458n,
    3027115137917284492n,
    9595098600469470675n,
    10528569829048484079n,
    7864689113198939815n,
    17533723827845969040n,
    5781638039037710951n,
    17024078752430719006n,
    109659393484013511n,
    7158933660534805869n,
    2955076958026921730n,
    7433723648458773977n,
  ],
  [
    16308865189192447297n,
    11977192855656444890n,
    12532242556065780287n,
    14594890931430968898n,
    7291784239689209784n,
    5514718540551361949n,
    10025733853830934803n,
    7293794580341021693n,
    6728552937464861756n,
    6332385040983343262n,
    13277683694236792804n,
    2600778905124452676n,
  ],
  [
    7123075680859040534n,
    1034205548717903090n,
    7717824418247931797n,
    3019070937878604058n,
    11403792746066867460n,
    10280580802233112374n,
    337153209462421218n,
    13333398568519923717n,
    3596153696935337464n,
    8104208463525993784n,
    14345062289456085693n,
    17036731477169661256n,
  ],
];
/** Round constants added before the x^(1/7) half-round. */
export const ARK2: bigint[][] = [
  [
    6077062762357204287n,
    15277620170502011191n,
    5358738125714196705n,
    14233283787297595718n,
    13792579614346651365n,
    11614812331536767105n,
    14871063686742261166n,
    10148237148793043499n,
    4457428952329675767n,
    15590786458219172475n,
    10063319113072092615n,
    14200078843431360086n,
  ],
  [
    6202948458916099932n,
    17690140365333231091n,
    3595001575307484651n,
    373995945117666487n,
    1235734395091296013n,
    14172757457833931602n,
    707573103686350224n,
    15453217512188187135n,
    219777875004506018n,
    17876696346199469008n,
    17731621626449383378n,
    2897136237748376248n,
  ],
  [
    8023374565629191455n,
    15013690343205953430n,
    4485500052507912973n,
    12489737547229155153n,
    9500452585969030576n,
    2054001340201038870n,
    12420704059284934186n,
    355990932618543755n,
    9071225051243523860n,
    12766199826003448536n,
    9045979173463556963n,
    12934431667190679898n,
  ],
  [
    18389244934624494276n,
    16731736864863925227n,
    4440209734760478192n,
    17208448209698888938n,
    8739495587021565984n,
    17000774922218161967n,
    13533282547195532087n,
    525402848358706231n,
    16987541523062161972n,
    5466806524462797102n,
    14512769585918244983n,
    10973956031244051118n,
  ],
  [
    6982293561042362913n,
    14065426295947720331n,
    16451845770444974180n,
    7139138592091306727n,
    9012006439959783127n,
    14619614108529063361n,
    1394813199588124371n,
    4635111139507788575n,
    16217473952264203365n,
    10782018226466330683n,
    6844229992533662050n,
    7446486531695178711n,
  ],
  [
    3736792340494631448n,
    577852220195055341n,
    6689998335515779805n,
    13886063479078013492n,
    14358505101923202168n,
    7744142531772274164n,
    16135070735728404443n,
    12290902521256031137n,
    12059913662657709804n,
    16456018495793751911n,
    4571485474751953524n,
    17200392109565783176n,
  ],
  [
    17130398059294018733n,
    519782857322261988n,
    9625384390925085478n,
    1664893052631119222n,
    7629576092524553570n,
    3485239601103661425n,
    9755891797164033838n,
    15218148195153269027n,
    16460604813734957368n,
    9643968136937729763n,
    3611348709641382851n,
    18256379591337759196n,
  ],
];

export function pow7(x: bigint): bigint {
  const x2 = (x * x) % P;
  const x3 = (x2 * x) % P;
  const x6 = (x3 * x3) % P;
  return (x6 * x) % P;
}

/** MDS · s (canonical output). The entries are below 32, so 12 products are summed before one reduction. */
export function applyMds(s: readonly bigint[]): bigint[] {
  const out = new Array<bigint>(WIDTH);
  for (let i = 0; i < WIDTH; i++) {
    let acc = 0n;
    for (let j = 0; j < WIDTH; j++) acc += MDS_FIRST_ROW[(j - i + WIDTH) % WIDTH] * s[j];
    out[i] = acc % P;
  }
  return out;
}

/** One RPO round: MDS, ARK1, x^7, MDS, ARK2, x^(1/7). */
export function applyRound(state: readonly bigint[], r: number): bigint[] {
  const u = applyMds(state).map((v, i) => pow7((v + ARK1[r][i]) % P));
  return applyMds(u).map((v, i) => pow((v + ARK2[r][i]) % P, INV_ALPHA));
}

/** All ROUNDS + 1 states of the permutation (the execution trace of the statement). */
export function permutationStates(input: readonly bigint[]): bigint[][] {
  if (input.length !== WIDTH) throw new Error('rpo: bad state width');
  const states = [input.slice()];
  for (let r = 0; r < ROUNDS; r++) states.push(applyRound(states[r], r));
  return states;
}

export function permute(input: readonly bigint[]): bigint[] {
  return permutationStates(input)[ROUNDS];
}

/** The sponge's initial state for hash_elements of `len` felts: capacity lane 0 = len mod 8. */
export function initialState(len: number): bigint[] {
  const s = new Array<bigint>(WIDTH).fill(0n);
  s[0] = BigInt(len % RATE);
  return s;
}

/** Rpo256::hash_elements: absorb into the rate, zero-pad the last block, digest = lanes 4..7. */
export function hashElements(elements: readonly bigint[]): bigint[] {
  let state = initialState(elements.length);
  let i = 0;
  for (const e of elements) {
    if (typeof e !== 'bigint' || e < 0n || e >= P) throw new Error('rpo: elements must be canonical felts');
    state[RATE_START + i] = e;
    i++;
    if (i === RATE) {
      state = permute(state);
      i = 0;
    }
  }
  if (i > 0) {
    for (; i < RATE; i++) state[RATE_START + i] = 0n;
    state = permute(state);
  }
  return state.slice(DIGEST_START, DIGEST_START + DIGEST_SIZE);
}

/** Rpo256::merge of two 4-felt digests (a 2-to-1 compression, as in Miden's Merkle trees). */
export function merge(a: readonly bigint[], b: readonly bigint[]): bigint[] {
  const s = new Array<bigint>(WIDTH).fill(0n);
  for (let i = 0; i < 4; i++) {
    s[RATE_START + i] = a[i];
    s[RATE_START + 4 + i] = b[i];
  }
  return permute(s).slice(DIGEST_START, DIGEST_START + DIGEST_SIZE);
}

/**
 * The session key hash: hash_elements(sk) for the 4-felt key, i.e. one permutation of
 * [4, 0, 0, 0 | sk0..sk3 | 0, 0, 0, 0] and the digest lanes. Identical to Miden's Rpo256.
 */
export const KEY_FELTS = 4;
export function keyHashInput(secretKey: readonly bigint[]): bigint[] {
  if (secretKey.length !== KEY_FELTS) throw new Error('rpo: key must be 4 felts');
  const s = initialState(KEY_FELTS);
  for (let i = 0; i < KEY_FELTS; i++) s[RATE_START + i] = secretKey[i];
  return s;
}
export function hashKey(secretKey: readonly bigint[]): bigint[] {
  return permute(keyHashInput(secretKey)).slice(DIGEST_START, DIGEST_START + DIGEST_SIZE);
}
