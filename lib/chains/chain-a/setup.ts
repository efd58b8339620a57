import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LIGHT_CLI_INTEGRITY, LIGHT_CLI_PACKAGE, LIGHT_CLI_VERSION, LIGHT_FILES } from './light-artifacts.ts';

/**
 * Light Protocol's programs and tree accounts for the local chain A, kept outside git in a cache
 * (`LIGHT_ARTIFACTS_DIR`, default `~/.cache/shroud/zk-compression-cli-<version>`). `npm ci` runs
 * this file (the `prepare` script) and the local adapter calls `ensureLightArtifacts` again before
 * it loads anything, so `npm start` on a fresh clone works too. Every file is checked against its
 * pinned SHA-256, on download and on every load.
 */
export function lightArtifactsDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.LIGHT_ARTIFACTS_DIR ?? join(homedir(), '.cache', 'shroud', `zk-compression-cli-${LIGHT_CLI_VERSION}`);
}

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** The files that are missing or differ from their pinned hash. */
function stale(dir: string): string[] {
  return Object.entries(LIGHT_FILES)
    .filter(([file, hash]) => !existsSync(join(dir, file)) || sha256(join(dir, file)) !== hash)
    .map(([file]) => file);
}

/** Makes sure the cache holds every pinned file; fetches the package with `npm pack` when not. */
export function ensureLightArtifacts(dir = lightArtifactsDir()): string {
  if (stale(dir).length === 0) return dir;
  const work = mkdtempSync(join(tmpdir(), 'shroud-light-'));
  try {
    const out = execFileSync('npm', ['pack', `${LIGHT_CLI_PACKAGE}@${LIGHT_CLI_VERSION}`, '--json', '--pack-destination', work], {
      cwd: work,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const [packed] = JSON.parse(out) as { filename: string; integrity: string }[];
    if (!packed || packed.integrity !== LIGHT_CLI_INTEGRITY) {
      throw new Error(`${LIGHT_CLI_PACKAGE}@${LIGHT_CLI_VERSION}: integrity ${packed?.integrity} is not the pinned one`);
    }
    execFileSync('tar', ['-xzf', join(work, packed.filename), '-C', work, 'package/bin', 'package/accounts']);
    for (const [file, hash] of Object.entries(LIGHT_FILES)) {
      const from = join(work, 'package', file);
      if (!existsSync(from)) throw new Error(`${file} is missing from ${LIGHT_CLI_PACKAGE}@${LIGHT_CLI_VERSION}`);
      const got = sha256(from);
      if (got !== hash) throw new Error(`${file}: SHA-256 ${got}, pinned ${hash}`);
      const to = join(dir, file);
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(from, `${to}.tmp`);
      renameSync(`${to}.tmp`, to);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const left = stale(dir);
  if (left.length) throw new Error(`Light Protocol artifacts still wrong after download: ${left.join(', ')}`);
  return dir;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dir = ensureLightArtifacts();
  console.log(`Light Protocol programs and accounts (${LIGHT_CLI_PACKAGE}@${LIGHT_CLI_VERSION}) verified in ${dir}`);
}
