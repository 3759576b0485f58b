import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { SERVER_NODE_FLAGS } from '../bench/support.js';
import { assertProductionSecrets, loadConfig } from '../src/config.js';

/**
 * Packaging: the Dockerfile, compose.yaml and the `gateway` bin. No Docker engine is needed:
 * the files are read as the engine would read them and checked against the repository (the
 * files they copy exist, the environment compose gives the containers passes the service's own
 * production checks). scripts/check-dist.mjs (run by CI) runs the image's steps natively.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface Instruction {
  keyword: string;
  args: string;
}
interface Stage {
  from: string;
  name: string | undefined;
  instructions: Instruction[];
}

/** Dockerfile: comments dropped, `\` continuations joined, instructions grouped by FROM. */
function parseDockerfile(text: string): { args: Record<string, string>; stages: Stage[] } {
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, keyword, rest] = /^(\S+)\s*(.*)$/.exec(line)!;
    const instruction = { keyword: keyword.toUpperCase(), args: rest.trim() };
    if (instruction.keyword === 'FROM') {
      const [image, as, name] = instruction.args.split(/\s+/);
      const resolved = image.replace(/\$\{(\w+)\}/g, (_, v: string) => args[v] ?? stages.find((s) => s.name === v)?.from ?? '');
      stages.push({ from: resolved, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else if (stages.length === 0 && instruction.keyword === 'ARG') {
      const [name, value] = instruction.args.split('=');
      args[name] = value ?? '';
    } else stages.at(-1)?.instructions.push(instruction);
  }
  return { args, stages };
}

/** The stages a stage builds on (FROM another stage), itself first. */
function lineage(stages: Stage[], stage: Stage): Stage[] {
  const parent = stages.find((s) => s.name !== undefined && s.name === stage.from);
  return parent ? [stage, ...lineage(stages, parent)] : [stage];
}
const runs = (stages: Stage[], stage: Stage) => lineage(stages, stage).flatMap((s) => s.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args));

/** .dockerignore as the engine applies it: patterns in order, the last one matching a path or a parent wins. */
function ignoredByDockerignore(path: string): boolean {
  const patterns = read('.dockerignore').split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const toRegExp = (glob: string) =>
    new RegExp(`^${glob.replace(/\/+$/, '').replace(/[.+^$()|[\]{}]/g, '\\$&').replace(/\*\*/g, '\u0000').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]').replace(/\u0000/g, '.*')}$`);
  const prefixes = path.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'));
  let ignored = false;
  for (const raw of patterns) {
    const negated = raw.startsWith('!');
    const re = toRegExp(negated ? raw.slice(1) : raw);
    if (prefixes.some((p) => re.test(p))) ignored = !negated;
  }
  return ignored;
}

describe('Dockerfile', () => {
  const { stages } = parseDockerfile(read('Dockerfile'));
  const runtime = stages.at(-1)!;
  const inRuntime = (keyword: string) => runtime.instructions.filter((i) => i.keyword === keyword);
  const copiesFrom = (stage: Stage, from: string) =>
    stage.instructions.filter((i) => i.keyword === 'COPY' && i.args.includes(`--from=${from}`));

  it('is multi-stage: the runtime stage is Node 20, holds compiled JS from a build stage and production dependencies', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(runtime.from).toMatch(/^node:20([.-]|$)/);

    // dist/ comes from a stage that installed everything (npm ci) and ran npm run build.
    const dist = runtime.instructions.find((i) => i.keyword === 'COPY' && /--from=\S+\s+\S*\/dist\s/.test(`${i.args} `));
    expect(dist, 'COPY --from=<build> .../dist').toBeDefined();
    const build = stages.find((s) => s.name === /--from=(\S+)/.exec(dist!.args)![1])!;
    const buildRuns = runs(stages, build);
    expect(buildRuns.some((r) => /\bnpm ci\b(?!.*--omit=dev)/.test(r))).toBe(true);
    expect(buildRuns.some((r) => /\bnpm run build\b/.test(r))).toBe(true);

    // node_modules come from npm ci --omit=dev (here or in the stage it is copied from).
    const modules = runtime.instructions.find((i) => i.keyword === 'COPY' && /node_modules/.test(i.args));
    const depsRuns = modules ? runs(stages, stages.find((s) => s.name === /--from=(\S+)/.exec(modules.args)?.[1])!) : runs(stages, runtime);
    expect(depsRuns.some((r) => /\bnpm ci\b.*--omit=dev/.test(r))).toBe(true);

    // Compiled JavaScript only: no TypeScript sources, no compiler, no whole-context copy.
    const copied = inRuntime('COPY').filter((i) => !i.args.includes('--from=')).map((i) => i.args.split(/\s+/).slice(0, -1)).flat();
    expect(copied).not.toContain('src');
    expect(copied).not.toContain('.');
    expect(copied, 'package.json ("type": "module" for dist/)').toContain('package.json');
    expect(runtime.from).not.toBe(build.name);
  });

  it('runs as a non-root user, checks /readyz with node, and runs node dist/server.js in exec form, with the flags npm start and the benchmarks use', () => {
    const user = inRuntime('USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);

    const healthcheck = inRuntime('HEALTHCHECK').at(-1)?.args ?? '';
    const probe = JSON.parse(/\bCMD\s+(\[.*\])\s*$/.exec(healthcheck)?.[1] ?? 'null') as string[] | null;
    expect(probe?.[0]).toBe('node');
    expect(probe?.join(' ')).toContain('/readyz');

    // Exec form, and no shell entrypoint in front of it: SIGTERM reaches node, which shuts down cleanly.
    expect(JSON.parse(inRuntime('CMD').at(-1)!.args)).toEqual(['node', ...SERVER_NODE_FLAGS, 'dist/server.js']);
    // What bench/ measures is what operators run: the same V8 flags in the image and in npm start.
    const start = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start;
    expect(start).toBe(['node', ...SERVER_NODE_FLAGS, '--import tsx src/server.ts'].join(' '));
    expect(inRuntime('ENTRYPOINT')).toEqual([]);
    for (const s of inRuntime('STOPSIGNAL')) expect(s.args).toBe('SIGTERM');
  });

  it('copies only files that exist and that .dockerignore lets into the build context', () => {
    const sources = stages
      .flatMap((s) => s.instructions)
      .filter((i) => (i.keyword === 'COPY' || i.keyword === 'ADD') && !i.args.includes('--from='))
      .flatMap((i) => i.args.split(/\s+/).filter((a) => !a.startsWith('--')).slice(0, -1));
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(existsSync(join(root, source)), source).toBe(true);
      expect(ignoredByDockerignore(source), `${source} is excluded by .dockerignore`).toBe(false);
    }
    for (const local of ['node_modules', 'dist', 'data', '.env', '.git']) expect(ignoredByDockerignore(local), local).toBe(true);
  });

  it('the build stage has what npm run build runs (tsc and scripts/copy-assets.mjs)', () => {
    const build = JSON.parse(read('package.json')).scripts.build as string;
    const scripts = [...build.matchAll(/node (\S+\.mjs)/g)].map((m) => m[1]);
    expect(scripts).toContain('scripts/copy-assets.mjs');
    for (const script of scripts) {
      expect(existsSync(join(root, script)), script).toBe(true);
      expect(ignoredByDockerignore(script)).toBe(false);
    }
    expect(build).toContain('tsc -p tsconfig.build.json');
  });
});

describe('compose.yaml', () => {
  const compose = parseYaml(read('compose.yaml'), { merge: true }) as {
    services: Record<string, { image?: string; build?: unknown; command?: string[]; environment?: Record<string, string>; volumes?: string[]; healthcheck?: { test?: unknown }; depends_on?: Record<string, { condition: string }>; ports?: string[] }>;
  };
  const services = compose.services;

  /** Compose's interpolation: ${VAR}, ${VAR:-default}, ${VAR:?error} (an unset or empty VAR is an error). */
  function interpolate(value: string, vars: Record<string, string>): string {
    return value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, op: string | undefined, arg: string) => {
      const v = vars[name];
      if (v !== undefined && v !== '') return v;
      if (op === '?') throw new Error(`${name}: ${arg}`);
      return op === '-' ? arg : '';
    });
  }
  const environmentOf = (service: string, vars: Record<string, string>) =>
    Object.fromEntries(Object.entries(services[service].environment ?? {}).map(([k, v]) => [k, interpolate(String(v), vars)]));
  /** .env.example with the secrets filled in, as an operator would. */
  const dotenv = () => {
    const vars = Object.fromEntries(
      read('.env.example')
        .split(/\r?\n/)
        .filter((l) => /^\w+=/.test(l))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    return { ...vars, POSTGRES_PASSWORD: 'pw', ADMIN_API_KEY: 'a'.repeat(40), DATA_KEY: Buffer.alloc(32, 1).toString('base64') };
  };

  it('has PostgreSQL with a healthcheck and a volume, one api (ROLE=api) and one worker (ROLE=worker)', () => {
    const db = Object.entries(services).find(([, s]) => s.image?.startsWith('postgres:'));
    expect(db, 'a postgres service').toBeDefined();
    const [dbName, postgres] = db!;
    expect(postgres.healthcheck?.test).toBeDefined();
    expect(postgres.volumes?.some((v) => v.endsWith(':/var/lib/postgresql/data'))).toBe(true);

    const vars = dotenv();
    expect(environmentOf('api', vars)).toMatchObject({ ROLE: 'api', GATEWAY_MODE: 'production' });
    expect(environmentOf('worker', vars)).toMatchObject({ ROLE: 'worker', GATEWAY_MODE: 'production' });
    expect(services.api.ports?.some((p) => /:8080$/.test(interpolate(p, vars)))).toBe(true);
    for (const name of ['api', 'worker']) {
      expect(services[name].build ?? services[name].image).toBeDefined();
      expect(services[name].depends_on?.[dbName]?.condition).toBe('service_healthy');
      // The database URL names the compose database service, its user and database.
      const url = new URL(environmentOf(name, vars).DATABASE_URL);
      const pgEnv = postgres.environment ?? {};
      expect([url.protocol, url.hostname, url.pathname.slice(1), url.username]).toEqual(['postgres:', dbName, pgEnv.POSTGRES_DB, pgEnv.POSTGRES_USER]);
    }
  });

  it('gives the containers an environment the service accepts in production, and none without secrets', () => {
    for (const name of ['api', 'worker']) {
      const config = loadConfig(environmentOf(name, dotenv()));
      expect(() => assertProductionSecrets(config)).not.toThrow();
      expect(config.mode).toBe('production');
      expect(config.role).toBe(name);
      expect(config.acquirer.kind).toBe('sandbox'); // stated, not defaulted by the service
    }
    // compose.yaml itself states the sandbox acquirer, whatever .env says or omits.
    const secretsOnly = { POSTGRES_PASSWORD: 'pw', ADMIN_API_KEY: 'a'.repeat(40), DATA_KEY: Buffer.alloc(32, 1).toString('base64') };
    expect(loadConfig(environmentOf('api', secretsOnly)).acquirer).toMatchObject({ kind: 'sandbox', explicit: true });
    // Nothing secret has a default: with .env.example as shipped (empty secrets) compose refuses.
    for (const secret of ['ADMIN_API_KEY', 'DATA_KEY', 'POSTGRES_PASSWORD']) {
      expect(() => environmentOf('api', { ...dotenv(), [secret]: '' })).toThrow(secret);
    }
    // ACQUIRER=cielo takes the CIELO_* settings from the same place.
    const cielo = loadConfig(environmentOf('api', { ...dotenv(), ACQUIRER: 'cielo', CIELO_MERCHANT_ID: 'mid', CIELO_MERCHANT_KEY: 'mkey' }));
    expect(() => assertProductionSecrets(cielo)).not.toThrow();
    expect(cielo.acquirer.cielo).toMatchObject({ merchantId: 'mid', merchantKey: 'mkey' });
    expect(() => assertProductionSecrets(loadConfig(environmentOf('api', { ...dotenv(), ACQUIRER: 'cielo' })))).toThrow(/CIELO_MERCHANT_ID/);
  });

  it('migrates before api and worker start, through the bin the image carries', () => {
    const migrating = Object.entries(services).filter(([, s]) => s.command?.join(' ').includes('migrate'));
    expect(migrating).toHaveLength(1);
    const [name, migrate] = migrating[0];
    expect(migrate.command).toEqual(['node', 'bin/gateway.js', 'migrate', 'up']);
    expect(existsSync(join(root, 'bin/gateway.js'))).toBe(true);
    for (const s of ['api', 'worker']) expect(services[s].depends_on?.[name]?.condition).toBe('service_completed_successfully');
  });
});

describe('the gateway bin', () => {
  function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
      const probe = createServer();
      probe.on('error', reject);
      probe.listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
  }

  function gateway(args: string[], env: Record<string, string>) {
    const child = spawn(process.execPath, [join(root, 'bin/gateway.js'), ...args], { cwd: root, env: { PATH: process.env.PATH!, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, exited, output: () => output };
  }

  it('gateway serve keeps serving until SIGTERM, then exits 0', { timeout: 90_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-serve-'));
    try {
      const port = await freePort();
      const run = gateway(['serve'], { PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(dir, 'gateway.db')}`, LOG_LEVEL: 'warn', PASSWORD_HASH_COST: '10' });
      let ready = false;
      for (const deadline = Date.now() + 60_000; !ready && Date.now() < deadline; ) {
        const exited = await Promise.race([run.exited, new Promise((r) => setTimeout(() => r('running'), 200))]);
        expect(exited, run.output()).toBe('running');
        ready = (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200;
      }
      expect(ready, run.output()).toBe(true);
      // Still serving a moment later: the command did not return once the server had started.
      await new Promise((r) => setTimeout(r, 500));
      expect(run.child.exitCode).toBeNull();
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);

      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gateway serve refuses a half-configured production start with exit code 2', { timeout: 60_000 }, async () => {
    const run = gateway(['serve'], { GATEWAY_MODE: 'production' });
    expect(await run.exited).toBe(2);
    expect(run.output()).toContain('ADMIN_API_KEY is required in production');
  });
});
