import { DecryptCommand, CreateKeyCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { CreateSecretCommand, GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOTO_INSTALL_HINT, startMoto, type Moto } from '../../lib/local/moto.ts';

/**
 * Moto's server as lib/local/moto.ts runs it: on a free loopback port, answering the AWS-only
 * services the deployed code uses (KMS data keys with their encryption context, an SQS queue's
 * redrive into its dead-letter queue, a Secrets Manager secret read by ARN, EventBridge), stopped
 * with its port closed; a missing `moto_server` says what to install.
 */
let moto: Moto;
const aws = () => ({ endpoint: moto.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
beforeAll(async () => {
  moto = await startMoto();
}, 90_000);
afterAll(() => moto?.stop());

describe('Moto (lib/local/moto.ts)', () => {
  it('listens on loopback only', () => {
    expect(moto.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('issues KMS data keys bound to their encryption context', async () => {
    const kms = new KMSClient(aws());
    const { KeyMetadata } = await kms.send(new CreateKeyCommand({ Description: 'wallets' }));
    const context = { wallet: 'w-1' };
    const key = await kms.send(new GenerateDataKeyCommand({ KeyId: KeyMetadata!.Arn, KeySpec: 'AES_256', EncryptionContext: context }));
    expect(key.Plaintext).toHaveLength(32);
    const back = await kms.send(new DecryptCommand({ CiphertextBlob: key.CiphertextBlob, EncryptionContext: context }));
    expect(Buffer.from(back.Plaintext!).equals(Buffer.from(key.Plaintext!))).toBe(true);
    await expect(kms.send(new DecryptCommand({ CiphertextBlob: key.CiphertextBlob, EncryptionContext: { wallet: 'w-2' } }))).rejects.toThrow();
    kms.destroy();
  });

  it('moves an SQS message received maxReceiveCount times into the dead-letter queue', async () => {
    const sqs = new SQSClient(aws());
    const dlq = await sqs.send(new CreateQueueCommand({ QueueName: 'jobs-dlq' }));
    const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
    const q = await sqs.send(
      new CreateQueueCommand({
        QueueName: 'jobs',
        Attributes: { VisibilityTimeout: '0', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 2 }) },
      }),
    );
    await sqs.send(new SendMessageCommand({ QueueUrl: q.QueueUrl, MessageBody: 'copy' }));
    for (let i = 0; i < 2; i++) expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.QueueUrl }))).Messages).toHaveLength(1);
    expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.QueueUrl }))).Messages ?? []).toHaveLength(0);
    expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlq.QueueUrl }))).Messages?.[0]?.Body).toBe('copy');
    sqs.destroy();
  });

  it('serves a secret by its ARN, and EventBridge', async () => {
    const sm = new SecretsManagerClient(aws());
    const { ARN } = await sm.send(new CreateSecretCommand({ Name: 'pinata-jwt', SecretString: 'jwt-value' }));
    expect((await sm.send(new GetSecretValueCommand({ SecretId: ARN }))).SecretString).toBe('jwt-value');
    sm.destroy();
    const rules = await fetch(moto.endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'AWSEvents.ListRules',
        authorization: 'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/events/aws4_request',
      },
      body: '{}',
    });
    expect(rules.status).toBe(200);
    expect(await rules.json()).toMatchObject({ Rules: [] });
  });

  it("derives the attest issuer's key from the stack's generated secret, read by ARN (lib/attest/issuer.ts)", async () => {
    const { secretKey } = await import('../../lib/attest/issuer.ts');
    const sm = new SecretsManagerClient(aws());
    const made = async (name: string, value: string) => (await sm.send(new CreateSecretCommand({ Name: name, SecretString: value }))).ARN!;
    const arn = await made('attest-issuer-a', 'A'.repeat(64));
    const key = await secretKey(arn, sm);
    expect(key).toHaveLength(32);
    expect(await secretKey(arn, sm)).toEqual(key);
    expect(await secretKey(await made('attest-issuer-b', 'B'.repeat(64)), sm)).not.toEqual(key);
    await expect(secretKey(await made('attest-issuer-short', 'short'), sm)).rejects.toThrow(/no key material/);
    sm.destroy();
  });

  it('closes its port when stopped', async () => {
    const other = await startMoto();
    await other.stop();
    await expect(fetch(`${other.endpoint}/moto-api/data.json`)).rejects.toThrow();
  }, 90_000);

  it('says what to install when moto_server is missing', async () => {
    await expect(startMoto({ command: 'moto_server-not-installed' })).rejects.toThrow(MOTO_INSTALL_HINT);
  });
});
