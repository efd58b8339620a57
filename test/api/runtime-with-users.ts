import { afterAll, beforeAll, beforeEach } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';

export type SignedInUser = Awaited<ReturnType<typeof signedInUser>> & { client: HttpClient };

/**
 * The set-up most API test files share: this file's runtime (startTestRuntime with `env`), one
 * client per name registered and signed in on it (signedInUser), the runtime stopped after the
 * file. Hooks registered here run before the file's own `beforeAll` (which reads `rt` and the
 * users) and their stop after its `afterAll`. `fresh: true` moves the clock a minute before each
 * test: value moves are rate-limited per minute, so each test starts in a window of its own.
 */
export function runtimeWithUsers<N extends string>(env: Record<string, string>, names: readonly N[], opts: { fresh?: boolean } = {}) {
  const world = { rt: undefined as unknown as TestRuntime, users: {} as Record<N, SignedInUser> };
  beforeAll(async () => {
    world.rt = await startTestRuntime(env);
    for (const name of names) {
      const client = world.rt.client();
      world.users[name] = { client, ...(await signedInUser(client)) };
    }
  });
  afterAll(async () => world.rt?.stop());
  if (opts.fresh) beforeEach(() => advanceClock(61_000));
  return world;
}
