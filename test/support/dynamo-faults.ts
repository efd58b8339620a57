/**
 * DynamoDB failing on purpose: runs `fn` with the calls `fails` picks (by command, e.g.
 * `DeleteItemCommand`, and the input as JSON; at most `times` of them) throwing, as DynamoDB past
 * the SDK's retries would. Returns `fn`'s result and how many calls failed. The middleware sits
 * last in the build step, so a counter of calls added before it (compression-calls.test.ts) still
 * sees the failing ones. Import it once the runtime has set DynamoDB's endpoint: the client is
 * built at import (lib/data/client.ts).
 */
export async function withDynamoFailing<T>(
  fails: (command: string, input: string) => boolean,
  fn: () => Promise<T>,
  times = Infinity,
): Promise<{ out: T; failed: number }> {
  const { dynamo } = await import('#lib/data/client.ts');
  let failed = 0;
  dynamo.middlewareStack.add(
    (next, context) => async (args) => {
      if (failed < times && fails(context.commandName ?? '', JSON.stringify(args.input))) {
        failed++;
        throw new Error('injected: DynamoDB failing past its retries');
      }
      return next(args);
    },
    { step: 'build', priority: 'low', name: 'injectedFailures' },
  );
  try {
    return { out: await fn(), failed };
  } finally {
    dynamo.middlewareStack.remove('injectedFailures');
  }
}
