import type { Kysely } from 'kysely';

/**
 * A bank slip's discounts for early payment (up to three, as FEBRABAN's segments P and R carry
 * them): JSON `[{type, value, until, amountCents}]`, `value` in cents (fixed) or hundredths of a
 * percent (percent), `amountCents` what it takes off the slip's value.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('bankslips').addColumn('discounts', 'text', (c) => c.notNull().defaultTo('[]')).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('bankslips').dropColumn('discounts').execute();
}
