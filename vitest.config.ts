import { defineConfig } from 'vitest/config';
import { DurationSequencer } from './test/support/sequencer.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // One DynamoDB Local for the run, a table per test file (test/support/shared-dynamo.ts); one
    // `npm start` for the files that only send it requests, started when one asks (shared-npm-start.ts).
    globalSetup: ['test/support/shared-dynamo.ts', 'test/support/shared-npm-start.ts'],
    setupFiles: ['test/support/table-per-file.ts'],
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    // Longest files first (test/durations.json), so both workers finish together.
    sequence: { sequencer: DurationSequencer },
    env: {
      // The DynamoDB Local instances a test file starts itself (the fault and crash tests, `npm
      // start` children; the rest share the run's one): C1-only JIT and the serial GC halve a
      // start (about 7 s to 3.5 s here); a test's few requests never need C2's optimized code.
      JDK_JAVA_OPTIONS: process.env.JDK_JAVA_OPTIONS ?? '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC',
    },
  },
});
