import { startEphemeralPostgres } from './core/embedded/postgres.js';
import pg from 'pg';
const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
// make a migrated template once
const tpl = '/tmp/prof/template.tar';
import { existsSync } from 'node:fs';

import { migrate } from './core/db/migrate.js';
if (!existsSync(tpl)) {
  const p = await startEphemeralPostgres({});
  await migrate(p.url);
  await p.stop({ saveTo: tpl } as never);
}
for (let i = 0; i < 4; i++) {
  const c0 = cpu(), t0 = performance.now();
  const p = await startEphemeralPostgres({ loadDataDir: tpl });
  const c1 = cpu(), t1 = performance.now();
  const client = new pg.Client(p.url); await client.connect(); await client.query('select count(*) from episode'); await client.end();
  const c2 = cpu(), t2 = performance.now();
  await p.stop();
  const c3 = cpu(), t3 = performance.now();
  console.log(`boot wall ${(t1 - t0).toFixed(0)} cpu ${(c1 - c0).toFixed(0)}; first query wall ${(t2 - t1).toFixed(0)} cpu ${(c2 - c1).toFixed(0)}; stop wall ${(t3 - t2).toFixed(0)} cpu ${(c3 - c2).toFixed(0)}`);
}
