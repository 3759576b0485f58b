import type { Kysely } from 'kysely';

/**
 * A merchant's address (the API Pix's `logradouro`, `cidade`, `uf`, `cep`), which the payload at
 * a sandbox charge's location names as its receiver's. All four or none: null for a merchant
 * registered without one (the location then shows the sandbox's documented default).
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ['address_street', 'address_city', 'address_state', 'address_zip_code']) {
    await db.schema.alterTable('merchants').addColumn(column, 'text').execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['address_zip_code', 'address_state', 'address_city', 'address_street']) {
    await db.schema.alterTable('merchants').dropColumn(column).execute();
  }
}
