import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabase, testDialect } from './support/database.js';
import { migrationsApplied } from '../src/db/migrate.js';

describe(`database (${testDialect})`, () => {
  it('applies every migration and stores exact integers', async () => {
    const database = await freshDatabase();
    afterAll(() => database.close());
    expect(await migrationsApplied(database)).toBe(true);
    const row = await database.db
      .insertInto('merchants')
      .values({ merchant_id: 'm1', name: 'A', document_number: '11222333000181', legal_name: null, email: null, created_at: '2026-01-01T00:00:00.000Z' })
      .returning('account_number')
      .executeTakeFirstOrThrow();
    expect(row.account_number).toBe(100001);
  });
});
