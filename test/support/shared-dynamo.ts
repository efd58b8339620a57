import { startDynamoLocal } from '#lib/local/dynamodb-local.ts';

/**
 * vitest's globalSetup: one DynamoDB Local (in memory) for the whole run, instead of one started
 * by each test file (2.5 s and 3 CPU-seconds each, some 60 times). Each test file works on a table
 * of its own (test/support/table-per-file.ts), so files running side by side never see each
 * other's items; a test that kills DynamoDB Local starts its own (`startTestRuntime`'s `ownDynamo`).
 * Long-lived, it runs with the JVM's default compilers: vitest.config.ts's C1-only setting is the
 * workers' environment, for the instances they start themselves.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const dynamo = await startDynamoLocal(undefined);
  // Read by the test workers (test/support/runtime.ts), which inherit this process's environment.
  process.env.SHROUD_TEST_DYNAMODB_ENDPOINT = dynamo.endpoint;
  return () => dynamo.stop();
}
