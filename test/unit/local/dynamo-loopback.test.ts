import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAUNCHER_DIR } from '#lib/local/dynamodb-local.ts';

/**
 * The committed DynamoDB Local launcher (lib/local/java) is a Java 17 class built from its source
 * beside it: it binds the connectors to 127.0.0.1 and starts the server the jar's own arguments
 * describe. (That it really listens on loopback only: test/api/loopback-listeners.test.ts.)
 */
describe('DynamoDB Local loopback launcher', () => {
  it('is a Java 17 class naming what its source calls', () => {
    const bytes = readFileSync(join(LAUNCHER_DIR, 'DynamoLocalLoopback.class'));
    expect(bytes.readUInt32BE(0)).toBe(0xcafebabe);
    expect(bytes.readUInt16BE(6)).toBe(61); // Java 17: the runtime .ci/run installs
    const source = readFileSync(join(LAUNCHER_DIR, 'DynamoLocalLoopback.java'), 'utf8');
    for (const name of ['127.0.0.1', 'setHost', 'createServerFromCommandLineArgs', 'getConnectors', 'setAccessible', 'start']) {
      expect(source).toContain(name);
      expect(bytes.includes(Buffer.from(name))).toBe(true);
    }
  });
});
