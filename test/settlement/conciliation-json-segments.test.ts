import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connection.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import {
  INSTALLMENT_COLUMNS, INSTALLMENT_SEGMENTS, SUMMARY_COLUMNS, SUMMARY_SEGMENTS,
  installmentJson, installmentSegmentsJson, summaryJson, summarySegmentsJson,
} from '../../src/modules/settlement/conciliation-json.js';
import { dataSet } from './receivable-rows.js';

/**
 * The reader threads' records (SQLite writes the string runs, records.ts the 10,4 values) against
 * the records of the event-loop path, byte for byte, over the awkward values of the data set
 * (quotes, backslashes, control characters, U+2028, emoji, nulls, splits) and a few more.
 */
describe('conciliation records from SQLite segments', () => {
  it('are the bytes installmentJson and summaryJson write, for every row', async () => {
    const database = await openDatabase('sqlite::memory:');
    try {
      await migrateToLatest(database);
      const rows = dataSet(7001, 'mer_segments', 1_500);
      const odd = ['', '"', '\\', '\u0000x', '\u007f', 'ação', '\ud83d\ude00', '</script>', "it's"];
      rows.forEach((row, i) => {
        row.terminal = odd[i % odd.length] + row.terminal;
        row.card_name = odd[(i + 3) % odd.length];
        if (i % 13 === 0) Object.assign(row, { installment_value: 0, mdr_value: 9_999_999_999, af_fee_transaction: 1, received_value: 10_000 });
      });
      for (let i = 0; i < rows.length; i += 250) await database.db.insertInto('receivables').values(rows.slice(i, i + 250)).execute();
      const sqlite = (database.raw as { sqlite: import('better-sqlite3').Database }).sqlite;
      const read = (columns: readonly string[]) => sqlite.prepare(`select ${columns.join(', ')} from receivables order by id`).raw(true).all() as unknown[][];
      const installments = read(INSTALLMENT_COLUMNS).map(installmentJson);
      const summaries = read(SUMMARY_COLUMNS).map(summaryJson);
      expect(installments.length).toBe(1_500);
      expect(installments.some((t) => t.includes('"splits"'))).toBe(true);
      expect(read(INSTALLMENT_SEGMENTS).map(installmentSegmentsJson)).toEqual(installments);
      expect(read(SUMMARY_SEGMENTS).map(summarySegmentsJson)).toEqual(summaries);
      for (const text of installments) expect(() => JSON.parse(text)).not.toThrow();
    } finally {
      await database.close();
    }
  });
});
