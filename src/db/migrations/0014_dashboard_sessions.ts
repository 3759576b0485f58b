import type { Kysely } from 'kysely';

/**
 * The dashboard's sessions. The cookie carries a random id; only its SHA-256 is
 * stored, so a copy of the database opens no session. A merchant session names the credential
 * it logged in with (re-checked on every request, like a bearer token); an operator session
 * has none. The CSRF token is per session.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('dashboard_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text')
    .addColumn('user_name', 'text')
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dashboard_sessions_expiry').on('dashboard_sessions').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('dashboard_sessions').execute();
}
