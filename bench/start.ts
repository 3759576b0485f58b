/**
 * Start-up benchmark (PERFORMANCE.md "start"): `npm start` to a 200 from /readyz on the
 * embedded database, first start (fresh data dir: migrations, secrets, demo merchant) and
 * restart. Run: npx tsx bench/start.ts [runs]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const root = join(import.meta.dirname, '..');
const runs = Number(process.argv[2] ?? 3);

async function timeStart(dataDir: string, port: number): Promise<number> {
  const t0 = performance.now();
  const child = spawn('npm', ['start', '--silent'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(dataDir, 'gateway.db')}` },
    stdio: 'ignore',
    detached: true,
  });
  try {
    for (;;) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`);
        if (res.status === 200) return performance.now() - t0;
      } catch {
        /* not listening yet */
      }
      if (performance.now() - t0 > 30_000) throw new Error('no /readyz within 30 s');
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    process.kill(-child.pid!, 'SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const first: number[] = [];
const restart: number[] = [];
for (let i = 0; i < runs; i++) {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-bench-start-'));
  first.push(await timeStart(dir, 18500 + i));
  restart.push(await timeStart(dir, 18600 + i));
  rmSync(dir, { recursive: true, force: true });
}
const fmt = (xs: number[]) => `median ${Math.round(xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)])} ms (runs: ${xs.map(Math.round).join(', ')})`;
console.log(`npm start -> /readyz 200, embedded SQLite, ${runs} runs`);
console.log(`  first start (fresh database): ${fmt(first)}`);
console.log(`  restart (existing database):  ${fmt(restart)}`);
console.log('  target: < 3000 ms');
