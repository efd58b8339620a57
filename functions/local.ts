import { startRuntime } from '#lib/local/runtime.ts';
import { jobs } from './jobs.ts';
import { routes } from './routes.ts';

/** `npm start`: the API on localhost with every service embedded, serving this route table. */
const port = process.env.PORT === undefined ? 3000 : Number(process.env.PORT);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number, got ${process.env.PORT}`);
  process.exit(1);
}

// A second instance on the first one's DynamoDB and S3 (tests of many instances): both or neither.
const { LOCAL_DYNAMODB_ENDPOINT: dynamoEndpoint, LOCAL_S3_ENDPOINT: s3Endpoint } = process.env;
if (!dynamoEndpoint !== !s3Endpoint) {
  console.error('LOCAL_DYNAMODB_ENDPOINT and LOCAL_S3_ENDPOINT go together: give both or neither');
  process.exit(1);
}
const external = dynamoEndpoint && s3Endpoint ? { dynamoEndpoint, s3Endpoint } : undefined;
const runtime = await startRuntime({ port, routes, jobs, external });
console.log(`listening on ${runtime.url}`);
// Where to send StarkGate deposits by hand (eth_sendTransaction from one of its eth_accounts).
if ('services' in runtime && runtime.services.l1) console.log(`embedded Ethereum L1 (JSON-RPC) on ${runtime.services.l1.url}`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    await runtime.stop();
    process.exit(0);
  });
}
