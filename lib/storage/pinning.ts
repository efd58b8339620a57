import { storageConfig } from './config.ts';
import type { PinningAdapter } from './pinning-port.ts';
import { S3Pinning } from './pinning-s3.ts';

export type { Added, PinningAdapter, PinRef } from './pinning-port.ts';
export { mapReadError } from './pinning-s3.ts';

let adapter: PinningAdapter | undefined;

/** The configured adapter, built once per cold start. */
export async function pinning(): Promise<PinningAdapter> {
  if (adapter) return adapter;
  if (storageConfig.PINNING_ADAPTER === 'pinata') {
    const { PinataPinning } = await import('./pinning-pinata.ts');
    adapter = new PinataPinning(storageConfig);
  } else adapter = new S3Pinning();
  return adapter;
}

/** Test hook. */
export function setPinning(a: PinningAdapter | undefined): void {
  adapter = a;
}
