import { brasiliaDate } from './brasilia.js';

/**
 * Pix Automático rules of the Central Bank's API Pix (`/rec`, `/cobr`), pure: which plan periods
 * a recurrence can have, when a cycle's charge (`cobr`) is sent, and when a failed one is retried.
 */

/** `rec.calendario.periodicidade`. */
export type Periodicity = 'SEMANAL' | 'MENSAL' | 'TRIMESTRAL' | 'SEMESTRAL' | 'ANUAL';

/** A weekly recurrence is a Custom plan of exactly this many days. */
export const WEEKLY_INTERVAL = 7;

const BY_TYPE: Record<string, Periodicity> = { Monthly: 'MENSAL', Quarterly: 'TRIMESTRAL', Semesterly: 'SEMESTRAL', Yearly: 'ANUAL' };

/** The periodicity of a plan, or null when the API Pix has none for it (Bimonthly, other Custom intervals). */
export function periodicityOf(planType: string, intervalDays: number | undefined): Periodicity | null {
  if (planType === 'Custom') return intervalDays === WEEKLY_INTERVAL ? 'SEMANAL' : null;
  return BY_TYPE[planType] ?? null;
}

/**
 * `rec.politicaRetentativa`: the gateway asks for retries after the due date, PERMITE_3R_7D
 * (up to 3 retries within the 7 calendar days after it).
 */
export const RETRY_POLICY = 'PERMITE_3R_7D';
export const MAX_RETRIES = 3;
export const RETRY_WINDOW_DAYS = 7;
/** Days after the due date of retries 1, 2 and 3: spread over the window, the last on its 6th day. */
export const RETRY_OFFSET_DAYS = [2, 4, 6] as const;

/** A cycle's cobr reaches the payer's PSP from 10 to 2 days before its due date. */
export const COBR_EARLIEST_DAYS = 10;
export const COBR_LATEST_DAYS = 2;

const DAY_MS = 86_400_000;

/**
 * When a cycle's cobr is sent: the first day of its window (10 days before the due date), or
 * at once when that day is past. A cycle issued later than 2 days before its due date (a weekly
 * recurrence whose previous cycle used its retries) is sent at once as well; the PSP decides.
 */
export function cobrSendAt(due: Date, now: Date): Date {
  const earliest = due.getTime() - COBR_EARLIEST_DAYS * DAY_MS;
  return new Date(Math.max(earliest, now.getTime()));
}

/** Whether a cobr sent at `at` is inside its window before `due`. */
export function inCobrWindow(due: Date, at: Date): boolean {
  const before = due.getTime() - at.getTime();
  return before >= COBR_LATEST_DAYS * DAY_MS && before <= COBR_EARLIEST_DAYS * DAY_MS;
}

/** When retry `retriesSoFar + 1` is settled, or null once the policy's retries are used. */
export function pixRetryDate(due: Date, retriesSoFar: number): Date | null {
  const offset = RETRY_OFFSET_DAYS[retriesSoFar];
  return offset === undefined ? null : new Date(due.getTime() + offset * DAY_MS);
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * An idRec: "R", "R" (retries allowed) or "N", the receiving agent's 8 characters, the creation
 * date (yyyyMMdd, in Brasília) and an 11-character sequence unique that day (`random` gives its characters).
 */
export function recurrenceIdOf(agent: string, createdAt: Date, random: (n: number) => number, retries = true): string {
  if (!/^[0-9A-Z]{8}$/.test(agent)) throw new RangeError('agent must be 8 of [0-9A-Z]');
  const day = brasiliaDate(createdAt).replace(/-/g, '');
  const sequence = Array.from({ length: 11 }, () => ID_ALPHABET[random(ID_ALPHABET.length)]).join('');
  return `R${retries ? 'R' : 'N'}${agent}${day}${sequence}`;
}

export const RECURRENCE_ID = /^R[RN][0-9A-Z]{8}\d{8}[a-zA-Z0-9]{11}$/;
