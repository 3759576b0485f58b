import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A PostgreSQL primary and a synchronous streaming standby built from the installed server
 * binaries (Debian's /usr/lib/postgresql/<version>/bin), in a temporary directory, on free
 * ports, behind HAProxy (Debian's `haproxy`) as the one endpoint: what the failover tests kill
 * and promote. As root, the binaries run as the `postgres` system user (initdb refuses root).
 */
export function postgresBin(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin', 'initdb')) && existsSync(join(base, v, 'bin', 'pg_basebackup')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(base, versions[0]!, 'bin') : undefined;
}

/** The OS user the binaries run as: `postgres` when we are root (it must exist), else ourselves. */
function runAs(): string | undefined | null {
  if (process.getuid?.() !== 0) return undefined;
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    return 'postgres';
  } catch {
    return null;
  }
}

/** The binaries are there and can be run (as root: through runuser, as the postgres user). */
export function canBuildPair(): boolean {
  return postgresBin() !== undefined && runAs() !== null && (process.getuid?.() !== 0 || existsSync('/usr/sbin/runuser') || existsSync('/sbin/runuser'));
}

export function haproxyBin(): string | undefined {
  return ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy', '/usr/bin/haproxy'].find((path) => existsSync(path));
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface Node {
  name: string;
  port: number;
  data: string;
}

export class PostgresPair {
  readonly dir = mkdtempSync(join(tmpdir(), 'gateway-pg-pair-'));
  readonly bin = postgresBin()!;
  primary!: Node;
  standby!: Node;

  private run(tool: string, args: string[]): string {
    const user = runAs();
    const [file, argv] = user ? ['runuser', ['-u', user, '--', join(this.bin, tool), ...args]] : [join(this.bin, tool), args];
    return execFileSync(file, argv, { cwd: this.dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  }

  /** initdb, a primary asking for one synchronous standby, pg_basebackup -R, both started; returns once the standby is in sync. */
  async start(): Promise<this> {
    chmodSync(this.dir, 0o777);
    this.primary = { name: 'primary', port: await freePort(), data: join(this.dir, 'primary') };
    this.standby = { name: 'standby', port: await freePort(), data: join(this.dir, 'standby') };
    this.run('initdb', ['-D', this.primary.data, '-U', 'postgres', '-A', 'trust', '--no-sync']);
    appendFileSync(
      join(this.primary.data, 'postgresql.conf'),
      [
        `port = ${this.primary.port}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${this.dir}'`,
        'wal_level = replica',
        'max_wal_senders = 5',
        'hot_standby = on',
        "synchronous_standby_names = 'standby'",
        'synchronous_commit = on',
        'fsync = off',
        'max_connections = 60',
        '',
      ].join('\n'),
    );
    appendFileSync(join(this.primary.data, 'pg_hba.conf'), 'host replication all 127.0.0.1/32 trust\n');
    this.pgCtl(this.primary, 'start');
    this.run('pg_basebackup', ['-h', '127.0.0.1', '-p', String(this.primary.port), '-U', 'postgres', '-D', this.standby.data, '-R', '-X', 'stream']);
    // -R wrote primary_conninfo; the standby names itself so the primary waits for it. Promoted,
    // it has no standby of its own: it must not wait for one (what a failover manager rewrites).
    appendFileSync(
      join(this.standby.data, 'postgresql.auto.conf'),
      `port = ${this.standby.port}\nprimary_conninfo = 'host=127.0.0.1 port=${this.primary.port} user=postgres application_name=standby'\nsynchronous_standby_names = ''\n`,
    );
    this.pgCtl(this.standby, 'start');
    await until(() => this.query(this.primary, "select count(*) from pg_stat_replication where sync_state = 'sync'") === '1', 30_000, 'the standby to be in sync');
    return this;
  }

  pgCtl(node: Node, action: 'start' | 'stop' | 'promote'): void {
    const args = ['-D', node.data, '-w', '-t', '60'];
    if (action === 'start') args.push('-l', join(this.dir, `${node.name}.log`), '-o', `-p ${node.port}`);
    if (action === 'stop') args.push('-m', 'immediate');
    this.run('pg_ctl', [...args, action]);
  }

  /** kill -9 of the node's postmaster: a machine that died, no shutdown at all. */
  kill(node: Node): void {
    const pid = Number(readFileSync(join(node.data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 'SIGKILL');
  }

  /** One value through psql (tuples only, unaligned). */
  query(node: Node, text: string): string {
    return this.run('psql', ['-h', '127.0.0.1', '-p', String(node.port), '-U', 'postgres', '-d', 'postgres', '-Atc', text]).trim();
  }

  /**
   * HAProxy in front of the pair, as a Patroni or repmgr setup has it: TCP, the primary as the
   * server and the standby as `backup` (sent connections only while the primary is down),
   * checked every 250 ms, down after 2 failed checks, and the sessions of a server marked down
   * closed at once. Returns the endpoint's URL (DATABASE_URL).
   */
  async startProxy(): Promise<string> {
    const port = await freePort();
    const config = join(this.dir, 'haproxy.cfg');
    writeFileSync(
      config,
      [
        'global',
        '  maxconn 500',
        'defaults',
        '  mode tcp',
        '  timeout connect 1s',
        '  timeout client 1h',
        '  timeout server 1h',
        '  timeout check 1s',
        'listen postgres',
        `  bind 127.0.0.1:${port}`,
        '  default-server inter 250ms fall 2 rise 2 on-marked-down shutdown-sessions',
        `  server primary 127.0.0.1:${this.primary.port} check`,
        `  server standby 127.0.0.1:${this.standby.port} check backup`,
        '',
      ].join('\n'),
    );
    this.proxy = spawn(haproxyBin()!, ['-db', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    this.proxy.stderr!.on('data', (d) => (this.proxyLog = (this.proxyLog + d).slice(-10_000)));
    this.proxyPort = port;
    await until(() => this.query({ name: 'haproxy', port, data: '' }, 'select pg_is_in_recovery()') === 'f', 15_000, () => `HAProxy to send to the primary: ${this.proxyLog}`);
    return `postgres://postgres@127.0.0.1:${port}/postgres`;
  }

  proxy: ChildProcess | undefined;
  proxyPort = 0;
  proxyLog = '';

  log(node: Node): string {
    try {
      return readFileSync(join(this.dir, `${node.name}.log`), 'utf8').slice(-4000);
    } catch {
      return '';
    }
  }

  stop(): void {
    this.proxy?.kill('SIGKILL');
    for (const node of [this.primary, this.standby]) {
      if (!node) continue;
      try {
        this.pgCtl(node, 'stop');
      } catch {
        // Already dead (killed by the test: its backends exit when they see their postmaster gone) or never started.
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export async function until(check: () => boolean | Promise<boolean>, ms: number, what: string | (() => string)): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await Promise.resolve().then(check).catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}`);
}
