/**
 * What the runtime scripts of this directory share (load.mjs, invoke.mjs, host.mjs): the handler
 * found and imported as Lambda's Node.js runtime does at an init (with the `awslambda` global in
 * place), and the context object of one invocation. Plain JavaScript, for the sandbox.
 */
import './awslambda.mjs';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** `index.handler` in `taskDir`: index.js, index.mjs or index.cjs, whose export must be a function. */
export async function importHandler(taskDir, handler) {
  const dot = handler.lastIndexOf('.');
  const [file, name] = [handler.slice(0, dot), handler.slice(dot + 1)];
  const path = ['.js', '.mjs', '.cjs'].map((ext) => join(taskDir, file + ext)).find((p) => existsSync(p));
  if (!path) throw new Error(`no ${file}.js, ${file}.mjs or ${file}.cjs in the asset`);
  const fn = (await import(pathToFileURL(path).href))[name];
  if (typeof fn !== 'function') throw new Error(`${file} exports no function ${name} (${typeof fn})`);
  return fn;
}

/** The context of one invocation, its remaining time counted from now. */
export function lambdaContext(timeoutMs) {
  const started = Date.now();
  const fnName = process.env.AWS_LAMBDA_FUNCTION_NAME;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: fnName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${process.env.AWS_REGION}:000000000000:function:${fnName}`,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: randomUUID(),
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    getRemainingTimeInMillis: () => Math.max(0, timeoutMs - (Date.now() - started)),
  };
}

/** An error's first lines, one line. */
export const errorText = (e, lines = 4) =>
  String(e?.stack ?? e)
    .split('\n')
    .slice(0, lines)
    .join(' | ');
