import { brl, DATE_TIME } from '../../domain/format-br.js';

/**
 * What the dashboard shows, formatted for pt-BR in both languages (the money is reais and the
 * merchants are Brazilian): R$ 1.234,56, 31/01/2026 09:00 in Brasília time. Never a float.
 */
export { brl };

/** An ISO instant -> "31/01/2026 09:00" (Brasília). A zone-less timestamp is read as Brasília time already. */
export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const instant = /[zZ]|[+-]\d\d:?\d\d$/.test(iso) ? new Date(iso) : new Date(`${iso}-03:00`);
  if (Number.isNaN(instant.getTime())) return iso;
  return DATE_TIME.format(instant).replace(',', '');
}

/** "2026-01-31" (or an ISO instant's date part) -> "31/01/2026". */
export function date(iso: string | null | undefined): string {
  if (!iso) return '';
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso);
  return m ? `${m[3]}/${m[2]}/${m[1]}` : iso;
}

/** Reais as the APIs carry them (a decimal number or text, e.g. 150.5) -> "R$ 150,50", through integer cents. */
export function reais(value: number | string | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const text = typeof value === 'number' ? value.toFixed(2) : value;
  const m = /^(-?)(\d+)(?:\.(\d{1,}))?$/.exec(text);
  if (!m) return String(value);
  const cents = BigInt(m[2]) * 100n + BigInt(((m[3] ?? '') + '00').slice(0, 2));
  return brl(m[1] ? -cents : cents);
}

/** 0.8765 -> "87,7 %"; a ratio of whole numbers as a percentage with one decimal. */
export function percent(part: number, whole: number): string {
  if (whole === 0) return '-';
  const tenths = Math.round((part * 1000) / whole);
  return `${Math.trunc(tenths / 10)},${tenths % 10} %`;
}

/** A 10,4 scaled value (receivables) in cents, rounded half up, for the charts and brl(). */
export function d4ToCents(value: bigint): bigint {
  return value >= 0n ? (value + 50n) / 100n : -((-value + 50n) / 100n);
}

/** A span of seconds, as the operator pages show it: 0 -> "-", 75 -> "1 min 15 s", 90000 -> "1 d 1 h". */
export function duration(seconds: number): string {
  const s = Math.floor(seconds);
  if (s <= 0) return '-';
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min ${s % 60} s`;
  return `${s} s`;
}
