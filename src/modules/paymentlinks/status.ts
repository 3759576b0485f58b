/** Payment link status codes and their texts (contract section 7; the seeds show 1 and 9). */
export const LINK_STATUS = { open: 1, paid: 2, expired: 3, deactivated: 9 } as const;
export type LinkStatus = (typeof LINK_STATUS)[keyof typeof LINK_STATUS];

export const STATUS_FORMAT: Record<number, string> = {
  1: 'Em Aberto',
  2: 'Pago',
  3: 'Expirado',
  9: 'Desativado',
};

export function statusFormat(status: number): string {
  return STATUS_FORMAT[status] ?? String(status);
}

/** The error tag the checkout answers when a link in this status cannot be paid. */
export const CLOSED_TAG: Record<number, string> = {
  2: 'link_paid',
  3: 'link_expired',
  9: 'link_deactivated',
};
