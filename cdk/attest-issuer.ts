import { RemovalPolicy } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';

/**
 * The attestation issuer's key when no `-c attestIssuerKeyCiphertext=` is given: a secret that
 * CloudFormation generates at the first deploy, encrypted under the attest key, which the attest
 * functions read by ARN (`ATTEST_ISSUER_SECRET_ARN`, lib/attest/issuer.ts derives the 32-byte
 * EdDSA key from it). A stage then signs from its first deploy, where a ciphertext could only be
 * made once the stack's key exists.
 */
export function attestIssuerSecret(scope: Construct, stage: string, key: IKey): Secret {
  const secret = new Secret(scope, 'AttestIssuerSecret', {
    description: `Shroud ${stage}: the attestation issuer's key material (lib/attest/issuer.ts)`,
    encryptionKey: key,
    generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
    removalPolicy: stage === 'prod' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
  });
  NagSuppressions.addResourceSuppressions(secret, [
    {
      id: 'AwsSolutions-SMG4',
      reason: "The issuer's signing key: a rotation would invalidate every attestation issued under it, so it is replaced deliberately, not on a schedule.",
    },
  ]);
  return secret;
}
