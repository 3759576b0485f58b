import { addDays } from '../../domain/calendar.js';
import { brasiliaStart } from '../../domain/brasilia.js';

export { brasiliaDate, brasiliaStart } from '../../domain/brasilia.js';

/** The `count` Brasília days ending `today`, oldest first, with their UTC bounds. */
export function lastDays(today: string, count: number): { date: string; from: string; to: string }[] {
  return Array.from({ length: count }, (_, i) => {
    const date = addDays(today, i + 1 - count);
    return { date, from: brasiliaStart(date), to: brasiliaStart(addDays(date, 1)) };
  });
}
