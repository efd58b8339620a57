/**
 * An SQS event source mapping, as Lambda's poller runs it, against Moto's SQS: long polls of the
 * queue, a batch of up to `batchSize` records per invocation (the SQSEvent shape), the messages
 * that succeeded deleted — all of them, or with `reportBatchItemFailures` all but the
 * `batchItemFailures` the function returned; a failed message stays invisible for the queue's
 * visibility timeout and comes again, and after its redrive policy's maxReceiveCount SQS moves it
 * to the dead-letter queue. At most `maxConcurrency` invocations at once.
 */
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient, type Message } from '@aws-sdk/client-sqs';
import type { QueueMapping } from './asset-wiring.ts';
import { MOTO_CREDENTIALS, REGION } from './local-aws.ts';

export function startSqsPoller(opts: {
  moto: string;
  queueUrl: string;
  mapping: QueueMapping;
  invoke: (event: unknown) => Promise<unknown>;
  onError: (e: Error) => void;
}): () => Promise<void> {
  const sqs = new SQSClient({ region: REGION, endpoint: opts.moto, credentials: MOTO_CREDENTIALS });
  const { mapping } = opts;
  let stopped = false;
  const loops = Array.from({ length: Math.max(1, mapping.maxConcurrency) }, async () => {
    while (!stopped) {
      try {
        const got = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: opts.queueUrl,
            MaxNumberOfMessages: Math.min(10, mapping.batchSize),
            WaitTimeSeconds: 1,
            AttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
        );
        const messages = got.Messages ?? [];
        if (!messages.length || stopped) continue;
        const failed = new Set<string>();
        try {
          const result = (await opts.invoke({ Records: messages.map((m) => recordOf(m, mapping.queueArn)) })) as
            | { batchItemFailures?: { itemIdentifier: string }[] }
            | undefined;
          if (mapping.reportBatchItemFailures) for (const f of result?.batchItemFailures ?? []) failed.add(f.itemIdentifier);
        } catch (e) {
          // A failed invocation: the whole batch comes again after the visibility timeout.
          for (const m of messages) failed.add(m.MessageId!);
          opts.onError(e as Error);
        }
        const done = messages.filter((m) => !failed.has(m.MessageId!));
        if (done.length)
          await sqs.send(
            new DeleteMessageBatchCommand({ QueueUrl: opts.queueUrl, Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })) }),
          );
      } catch (e) {
        if (stopped) break;
        opts.onError(e as Error);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  });
  return async () => {
    stopped = true;
    await Promise.all(loops);
    sqs.destroy();
  };
}

/** The SQSEvent record Lambda builds from a received message. */
export function recordOf(m: Message, queueArn: string) {
  return {
    messageId: m.MessageId!,
    receiptHandle: m.ReceiptHandle!,
    body: m.Body ?? '',
    attributes: m.Attributes ?? {},
    messageAttributes: m.MessageAttributes ?? {},
    md5OfBody: m.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: REGION,
  };
}
