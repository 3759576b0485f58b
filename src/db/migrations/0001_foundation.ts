import { sql, type Kysely } from 'kysely';
import { isPostgres } from './helpers.js';

/** Account numbers start high enough to look like account numbers and never collide with 0/1 test values. */
const FIRST_ACCOUNT_NUMBER = 100001;

export async function up(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);

  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('merchants')
    .addColumn('account_number', pg ? 'bigint' : 'integer', (c) =>
      pg
        ? c.primaryKey().generatedByDefaultAsIdentity().modifyEnd(sql`(start with ${sql.lit(FIRST_ACCOUNT_NUMBER)})`)
        : c.primaryKey().autoIncrement(),
    )
    .addColumn('merchant_id', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('document_number', 'text', (c) => c.notNull())
    .addColumn('legal_name', 'text')
    .addColumn('email', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  if (!pg) {
    await sql`insert into sqlite_sequence (name, seq) values ('merchants', ${FIRST_ACCOUNT_NUMBER - 1})`.execute(db);
  }

  await db.schema
    .createTable('credentials')
    .addColumn('user_name', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.merchant_id'))
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('allowed_ips', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('credentials_merchant_idx').on('credentials').column('merchant_id').execute();

  await db.schema
    .createTable('login_attempts')
    .addColumn('user_name', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('window_started_at', 'text', (c) => c.notNull())
    .addColumn('locked_until', 'text')
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('idem_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('content_type', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['owner', 'idem_key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created_idx').on('idempotency_keys').column('created_at').execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', pg ? 'bigint' : 'integer', (c) =>
      pg ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement(),
    )
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('run_at', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('dedupe_key', 'text', (c) => c.unique())
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // The claim query walks due jobs in time order; finished jobs stay out of this index's way.
  await db.schema.createIndex('jobs_due_idx').on('jobs').columns(['status', 'run_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['jobs', 'idempotency_keys', 'login_attempts', 'credentials', 'merchants', 'settings']) {
    await db.schema.dropTable(table).execute();
  }
}
