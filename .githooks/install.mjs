// `npm ci` (the prepare script) points git at .githooks/ when the checkout is a git work tree.
// Anywhere else — a tarball, a CI image without .git, a machine without git — it does nothing
// and never fails the install.
import { execFileSync } from 'node:child_process';

const git = (...args) =>
  execFileSync('git', args, { stdio: ['ignore', 'pipe', 'ignore'] })
    .toString()
    .trim();
try {
  if (git('rev-parse', '--is-inside-work-tree') === 'true') git('config', 'core.hooksPath', '.githooks');
} catch {
  // no git, or not a work tree: no hook to install
}
