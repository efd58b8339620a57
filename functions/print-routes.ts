import { routeTable } from './routes.ts';

process.stdout.write(`${JSON.stringify(routeTable(), null, 2)}\n`);
