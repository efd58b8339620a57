import { startDynamoLocal } from '#lib/local/dynamodb-local.ts';

/**
 * vitest's globalSetup: one DynamoDB Local (in memory) for the whole run, instead of one started
 * by each test file (2.5 s and 3 CPU-seconds each, some 60 times). Each test file works on a table
 * of its own (test/support/table-per-file.ts), so files running side by side never see each
 * other's items; a test that kills DynamoDB Local starts its own (`startTestRuntime`'s `ownDynamo`).
 * Long-lived, it runs with the JVM's default compilers: vitest.config.ts's C1-only setting is the
 * workers' environment, for the instances they start themselves.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  let dynamo;
  try {
    dynamo = await startDynamoLocal(undefined);
  } catch (e) {
    // No Java (a unit-only run may not need it): each runtime then starts its own and says why it cannot.
    console.warn(`shared DynamoDB Local not started: ${(e as Error).message}`);
    return undefined;
  }
  // Read by the test workers (test/support/runtime.ts), which inherit this process's environment.
  process.env.SHROUD_TEST_DYNAMODB_ENDPOINT = dynamo.endpoint;
  return () => dynamo.stop();
}
