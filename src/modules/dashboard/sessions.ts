import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/connection.js';

export type DashboardRole = 'merchant' | 'operator';

/** The cookie that carries a session's id (path /dashboard, HttpOnly, SameSite=Strict). */
export const SESSION_COOKIE = 'gw_session';

/** A live dashboard session, as a page handler sees it. */
export interface DashboardSession {
  idHash: string;
  role: DashboardRole;
  /** Merchant sessions only. */
  merchantId: string | null;
  userName: string | null;
  csrfToken: string;
  expiresAt: string;
}

export interface SessionLimits {
  /** Absolute lifetime from login. */
  ttlMs: number;
  /** A session unused this long ends. */
  idleMs: number;
}

const hashOf = (id: string) => createHash('sha256').update(id).digest('hex');
/** last_seen_at is written at most once a minute: a page view costs no write. */
const TOUCH_EVERY_MS = 60_000;

/**
 * The dashboard's sessions (table dashboard_sessions, owned here). The cookie carries 32
 * random bytes; the table keeps only their SHA-256. Expiry is on the wall clock, like the
 * login lockout: moving the sandbox clock does not log anyone out or in.
 */
export class DashboardSessions {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly limits: SessionLimits,
  ) {}

  /** Opens a session; answers the cookie value (never stored) and the session. */
  async open(role: DashboardRole, who: { merchantId?: string; userName?: string }): Promise<{ cookie: string; session: DashboardSession }> {
    const now = this.clock.wallNow();
    const cookie = randomBytes(32).toString('base64url');
    const session: DashboardSession = {
      idHash: hashOf(cookie),
      role,
      merchantId: who.merchantId ?? null,
      userName: who.userName ?? null,
      csrfToken: randomBytes(24).toString('base64url'),
      expiresAt: new Date(now.getTime() + this.limits.ttlMs).toISOString(),
    };
    await this.database.db
      .insertInto('dashboard_sessions')
      .values({
        id_hash: session.idHash,
        role,
        merchant_id: session.merchantId,
        user_name: session.userName,
        csrf_token: session.csrfToken,
        created_at: now.toISOString(),
        expires_at: session.expiresAt,
        last_seen_at: now.toISOString(),
      })
      .execute();
    // Expired sessions of anyone are swept on each login: the table stays the size of the live ones.
    await this.database.db.deleteFrom('dashboard_sessions').where('expires_at', '<', now.toISOString()).execute();
    return { cookie, session };
  }

  /** The live session of a cookie, or undefined (unknown, expired or idle too long: then it is removed). */
  async find(cookie: string | undefined): Promise<DashboardSession | undefined> {
    if (!cookie || cookie.length > 100) return undefined;
    const idHash = hashOf(cookie);
    const row = await this.database.db.selectFrom('dashboard_sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
    if (!row) return undefined;
    const now = this.clock.wallNow().getTime();
    const lastSeen = Date.parse(row.last_seen_at);
    if (Date.parse(row.expires_at) <= now || lastSeen + this.limits.idleMs <= now) {
      await this.close(cookie);
      return undefined;
    }
    if (now - lastSeen >= TOUCH_EVERY_MS) {
      await this.database.db.updateTable('dashboard_sessions').set({ last_seen_at: new Date(now).toISOString() }).where('id_hash', '=', idHash).execute();
    }
    return {
      idHash,
      role: row.role as DashboardRole,
      merchantId: row.merchant_id,
      userName: row.user_name,
      csrfToken: row.csrf_token,
      expiresAt: row.expires_at,
    };
  }

  async close(cookie: string): Promise<void> {
    await this.database.db.deleteFrom('dashboard_sessions').where('id_hash', '=', hashOf(cookie)).execute();
  }
}

/** Constant-time comparison of a posted CSRF token with the session's. */
export function csrfMatches(posted: unknown, expected: string): boolean {
  if (typeof posted !== 'string') return false;
  const a = Buffer.from(posted);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
