/**
 * Brazilian Portuguese presentation of money, dates and tax ids for the checkout page and
 * the history reasons. Money is formatted from integer cents as text: no float ever.
 */

/** 10605n -> "R$ 106,05"; 123456789n -> "R$ 1.234.567,89". */
export function brl(cents: bigint): string {
  const negative = cents < 0n;
  const digits = (negative ? -cents : cents).toString().padStart(3, '0');
  const reais = digits.slice(0, -2).replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${negative ? '-' : ''}R$ ${reais},${digits.slice(-2)}`;
}

/** Day, month, year, hour and minute in Brasília time (the checkout's and the dashboard's dates). */
export const DATE_TIME = new Intl.DateTimeFormat('pt-BR', {
  timeZone: 'America/Sao_Paulo',
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});

/** An ISO instant in Brasília time, as a payer reads it: "31/01/2026 às 09:00 (horário de Brasília)". */
export function dateTimeBr(iso: string): string {
  const parts = Object.fromEntries(DATE_TIME.formatToParts(new Date(iso)).map((p) => [p.type, p.value]));
  return `${parts.day}/${parts.month}/${parts.year} às ${parts.hour}:${parts.minute} (horário de Brasília)`;
}

/** "11222333000181" -> "CNPJ 11.222.333/0001-81"; "52998224725" -> "CPF 529.982.247-25". */
export function taxId(document: string): string {
  if (document.length === 11) return `CPF ${document.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, '$1.$2.$3-$4')}`;
  if (document.length === 14) return `CNPJ ${document.replace(/^(.{2})(.{3})(.{3})(.{4})(.{2})$/, '$1.$2.$3/$4-$5')}`;
  return document;
}
