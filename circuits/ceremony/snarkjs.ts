import * as snarkjsUntyped from 'snarkjs';

/** A snarkjs logger: the ceremony captures `info` lines to read what a verification saw. */
export interface Logger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

/** The slice of snarkjs 0.7.6 the build and the ceremony use. */
export interface SnarkJsSetup {
  curves: { getCurveFromName(name: string): Promise<unknown> };
  powersOfTau: {
    newAccumulator(curve: unknown, power: number, file: string, logger?: Logger): Promise<unknown>;
    contribute(oldFile: string, newFile: string, name: string, entropy: string, logger?: Logger): Promise<Uint8Array>;
    beacon(oldFile: string, newFile: string, name: string, hashHex: string, iterExp: number, logger?: Logger): Promise<Uint8Array | false>;
    preparePhase2(oldFile: string, newFile: string, logger?: Logger): Promise<unknown>;
    verify(file: string, logger?: Logger): Promise<boolean>;
  };
  zKey: {
    newZKey(r1cs: string, ptau: string, zkey: string, logger?: Logger): Promise<unknown>;
    contribute(oldFile: string, newFile: string, name: string, entropy: string, logger?: Logger): Promise<Uint8Array>;
    beacon(oldFile: string, newFile: string, name: string, hashHex: string, iterExp: number, logger?: Logger): Promise<Uint8Array | false>;
    verifyFromR1cs(r1cs: string, ptau: string, zkey: string, logger?: Logger): Promise<boolean>;
    exportVerificationKey(zkey: string): Promise<unknown>;
  };
  r1cs: { info(file: string): Promise<{ nConstraints: number; nPubInputs: number; nOutputs: number; nPrvInputs: number }> };
  groth16: {
    fullProve(input: unknown, wasm: string, zkey: string): Promise<{ proof: unknown; publicSignals: string[] }>;
    verify(vkey: unknown, publicSignals: string[], proof: unknown): Promise<boolean>;
  };
}

export const snarkjs = snarkjsUntyped as unknown as SnarkJsSetup;

/** snarkjs keeps the curve's worker threads alive; a command ends them before it exits. */
export async function terminateCurve(): Promise<void> {
  await (globalThis as { curve_bn128?: { terminate(): Promise<void> } | null }).curve_bn128?.terminate();
}

/** A logger that keeps every line (snarkjs writes hashes as `title\n\t\thex hex…` blocks). */
export function capturingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (msg: string) => void lines.push(...String(msg).split('\n'));
  return { lines, debug: () => {}, info: keep, warn: keep, error: keep };
}
