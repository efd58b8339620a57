import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type AppProps } from 'aws-cdk-lib';
import { afterAll } from 'vitest';
import { removeTemporaryBuilds } from '../../cdk/function-bundles.ts';

/** The synth output directories of this test file's apps: removed when the file is done. */
const outdirs: string[] = [];
afterAll(() => {
  for (const dir of outdirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  // The bundles and site builds the file's synths made (cdk/function-bundles.ts), for the same reason.
  removeTemporaryBuilds();
});

/**
 * A CDK App that synthesizes into a temporary directory of its own, removed after the file's tests.
 * Without `outdir` CDK makes a `cdk.out*` directory under the OS temp dir that is only removed at a
 * clean process exit, which a test worker does not always have: they piled up in /tmp.
 */
export function testApp(props: Omit<AppProps, 'outdir'> = {}): App {
  const outdir = mkdtempSync(join(tmpdir(), 'shroud-cdk-'));
  outdirs.push(outdir);
  return new App({ ...props, outdir });
}
