import { jsonString, scaledJsonText } from '../../domain/json-text.js';
import type { Field, Kind } from './record-fields.js';
import type { BankSlipRow } from './row.js';

/**
 * A listing record read as columns and made JSON text in JavaScript (PostgreSQL): the
 * bytes `sqlJsonObject` has the database write, without the database writing them. PostgreSQL's
 * `json_build_object` runs serially in its backend, before node can write a byte, and costs it
 * several times what handing the same columns over as arrays (src/db/pg-rows.ts) does; this
 * serializer makes the record on the event loop while the backend reads the next page.
 * test/bankslips/streaming.test.ts compares the bytes with the database's.
 */

/** Integer columns of a listing (the others are text): written as digits. */
const INTEGER_COLUMNS = new Set<keyof BankSlipRow>([
  'seq', 'value', 'paid_value', 'penalty_received', 'interest_received', 'overdue_allow', 'overdue_penalty_percent', 'overdue_interest_percent',
  'status_bill', 'status_integration',
]);

/** How each field is written: integers as digits, text as a JSON string, the scaled kinds as record-fields.ts renders them. */
type Writer = 'int' | 'text' | Exclude<Kind, 'plain'>;

export interface ListColumns {
  /** The select list: the fields' columns, then the keyset's date column and seq. */
  columns: string[];
  /** Positions of the keyset's date and seq in a row. */
  datePosition: number;
  seqPosition: number;
  toJson(row: unknown[]): string;
}

export function listColumns(fields: readonly Field[], dateColumn: string): ListColumns {
  const columns = [...fields.map(([, column]) => column as string), dateColumn, 'seq'];
  const writers: Writer[] = fields.map(([, column, kind]) => (kind !== 'plain' ? kind : INTEGER_COLUMNS.has(column) ? 'int' : 'text'));
  // Each key with what precedes it: `{"id":`, `,"value":`, ... (keys are ours: no escaping needed).
  const prefixes = fields.map(([key], i) => `${i === 0 ? '{' : ','}"${key}":`);
  const count = fields.length;
  const toJson = (row: unknown[]): string => {
    let out = '';
    for (let i = 0; i < count; i++) {
      out += prefixes[i];
      const v = row[i];
      if (v === null) {
        out += 'null';
        continue;
      }
      switch (writers[i]) {
        case 'int':
          out += v as number;
          break;
        case 'text':
          out += jsonString(v as string);
          break;
        case 'cents':
          out += scaledJsonText(v as number, 2);
          break;
        case 'percent':
          out += scaledJsonText(v as number, 4);
          break;
        case 'bool':
          out += v === 1 ? 'true' : 'false';
          break;
        case 'dayStart':
          out += jsonString(`${v as string}T00:00:00.000Z`);
          break;
      }
    }
    return out + '}';
  };
  return {
    columns,
    datePosition: fields.length,
    seqPosition: fields.length + 1,
    toJson,
  };
}
