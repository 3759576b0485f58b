import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';

/** What the replica needs of a database handle (src/db/connection.ts's Database). */
export interface ReplicaHandle {
  db: Kysely<DB>;
  close(): Promise<void>;
}

/**
 * The read replica (DATABASE_READ_URL): the long reads that decide nothing (conciliation
 * searches and their CSV export, bank slip listings) are sent to it while it answers and its
 * lag is within DB_READ_MAX_LAG_SECONDS; otherwise, and on any other read or any write, the
 * primary answers. Its state is probed every `intervalMs` on a connection of its own, so a
 * request never waits on a replica that went away: at worst it is read from the primary.
 */
export interface ReplicaState {
  /** The replica answered the last probe. */
  reachable: boolean;
  /** Seconds its replay is behind (0 when it has replayed all it received from a streaming primary); null when unknown. */
  lagSeconds: number | null;
  /** Reads are sent to it now. */
  inUse: boolean;
  /** Reads sent to the replica and to the primary since start. */
  routed: { replica: number; primary: number };
}

export class ReadReplica<D extends ReplicaHandle> {
  private reachable = false;
  private lagSeconds: number | null = null;
  private readonly routed = { replica: 0, primary: 0 };
  private timer: NodeJS.Timeout | undefined;
  private probing: Promise<void> | undefined;

  constructor(
    readonly database: D,
    private readonly maxLagSeconds: number,
    private readonly intervalMs = 1_000,
  ) {}

  /** Probes once, then every interval. */
  async start(): Promise<void> {
    await this.probe();
    this.timer = setInterval(() => void this.probe(), this.intervalMs);
    this.timer.unref();
  }

  /** Where a read that may be stale by up to DB_READ_MAX_LAG_SECONDS goes now. */
  pick(primary: D): D {
    if (this.usable()) {
      this.routed.replica++;
      return this.database;
    }
    this.routed.primary++;
    return primary;
  }

  state(): ReplicaState {
    return { reachable: this.reachable, lagSeconds: this.lagSeconds, inUse: this.usable(), routed: { ...this.routed } };
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.probing;
    await this.database.close();
  }

  private usable(): boolean {
    return this.reachable && this.lagSeconds !== null && this.lagSeconds <= this.maxLagSeconds;
  }

  probe(): Promise<void> {
    this.probing ??= this.read().finally(() => (this.probing = undefined));
    return this.probing;
  }

  private async read(): Promise<void> {
    try {
      // A standby that has replayed everything a streaming primary sent is current, however long
      // ago the last write was; one that is not streaming (its primary is gone, or it is
      // catching up) is as old as its last replayed transaction. A promoted one is a primary.
      const { rows } = await sql<{ recovery: boolean; streaming: boolean; caught_up: boolean | null; since_replay: number | null }>`
        select pg_is_in_recovery() as recovery,
          coalesce((select status = 'streaming' from pg_stat_wal_receiver), false) as streaming,
          pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() as caught_up,
          extract(epoch from now() - pg_last_xact_replay_timestamp())::float8 as since_replay`.execute(this.database.db);
      const r = rows[0]!;
      this.lagSeconds = !r.recovery ? 0 : r.streaming && r.caught_up ? 0 : (r.since_replay ?? null);
      this.reachable = true;
    } catch {
      this.reachable = false;
      this.lagSeconds = null;
    }
  }
}
