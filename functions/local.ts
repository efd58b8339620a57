import { startRuntime } from '#lib/local/runtime.ts';
import { routes } from './routes.ts';

/** `npm start`: the API on localhost with every service embedded, serving this route table. */
const port = process.env.PORT === undefined ? 3000 : Number(process.env.PORT);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number, got ${process.env.PORT}`);
  process.exit(1);
}

const runtime = await startRuntime({ port, routes });
console.log(`listening on ${runtime.url}`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    await runtime.stop();
    process.exit(0);
  });
}
