'use strict';
/**
 * s3rver's private modules the local S3 thread builds on (s3-worker.cjs has the list and why),
 * loaded from the s3rver the thread was given (`workerData.s3rver`), and the S3 errors the
 * thread's parts share.
 */
const path = require('node:path');
const { workerData } = require('node:worker_threads');

const dir = path.dirname(workerData.s3rver);
const S3Error = require(path.join(dir, 'models', 'error.js'));

module.exports = {
  S3rver: require(workerData.s3rver),
  FilesystemStore: require(path.join(dir, 'stores', 'filesystem.js')),
  S3Error,
  AWSAccount: require(path.join(dir, 'models', 'account.js')),
  bucketController: require(path.join(dir, 'controllers', 'bucket.js')),
  /** S3's bucket naming rules (no escapes: a name cannot leave the store). */
  BUCKET_NAME: /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
  preconditionFailed: (condition = 'If-None-Match') =>
    new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', { Condition: condition }),
};
