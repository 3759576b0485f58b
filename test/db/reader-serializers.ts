/** Serializers a SQLite reader thread loads in test/db/sqlite-readers.test.ts (by this module's URL). */
export const pairJson = (row: unknown[]): string => JSON.stringify({ n: row[0], text: row[1] });

/** Ends the reader thread that runs it, as a crash would. */
export const exitThread = (): string => process.exit(3);
