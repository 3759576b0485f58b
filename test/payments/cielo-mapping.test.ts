import { describe, expect, it } from 'vitest';
import { ABECS_CODES, CIELO_BRANDS, CIELO_STATUS, mapDeclineCode } from '../../src/acquirer/cielo/mapping.js';
import { decide } from '../../src/modules/recurrence/charge-outcome.js';

/** The mapping tables as data (docs/operations.md reproduces them): what each Cielo answer means to the recurrence rules. */
describe('Cielo return-code mapping', () => {
  const ctx = { dueDate: new Date('2026-01-01T00:00:00Z'), failuresSoFar: 1, attempts: 4 };
  const recurrenceOf = (code: string, environment: 'production' | 'sandbox') => {
    const mapped = mapDeclineCode(code, environment);
    return decide({ status: 'Denied', returnCode: mapped === 'failed' ? '96' : mapped }, ctx);
  };

  it('retries only insufficient funds (ABECS 51, Amex 116/121/A5)', () => {
    for (const code of ['51', '116', '121', 'A5']) expect(recurrenceOf(code, 'production').kind).toBe('retry');
    for (const code of ['05', '57', '14', '54', '59', '61', '99']) expect(recurrenceOf(code, 'production').kind).not.toBe('retry');
  });

  it('blocks the subscription for a cancelled, lost, stolen or blocked card, in production and in the sandbox', () => {
    for (const code of ['46', '41', '43', '78', '208', '209', '62']) expect(recurrenceOf(code, 'production'), code).toMatchObject({ kind: 'final', blockSubscription: true });
    for (const code of ['77', '78']) expect(recurrenceOf(code, 'sandbox'), code).toMatchObject({ kind: 'final', blockSubscription: true });
    expect(recurrenceOf('05', 'production')).toMatchObject({ kind: 'final', status: 'Denied', blockSubscription: false });
  });

  it("reads the sandbox's own codes (57 expired, 77 cancelled, 99 time-out) only in the sandbox environment", () => {
    expect(mapDeclineCode('57', 'sandbox')).toBe('54');
    expect(mapDeclineCode('57', 'production')).toBe('57');
    expect(mapDeclineCode('77', 'sandbox')).toBe('46');
    expect(mapDeclineCode('77', 'production')).toBe('05');
    expect(mapDeclineCode('99', 'sandbox')).toBe('failed');
    expect(recurrenceOf('99', 'sandbox')).toMatchObject({ kind: 'final', status: 'PaymentInvalid' });
  });

  it('an unknown code is a plain decline, never an approval or a retry', () => {
    expect(mapDeclineCode('XYZ', 'production')).toBe('05');
    expect(Object.values(ABECS_CODES)).not.toContain('00');
  });

  it('maps statuses and brands', () => {
    expect([1, 2].map((s) => CIELO_STATUS[s])).toEqual(['approved', 'approved']);
    expect(CIELO_STATUS[3]).toBe('declined');
    expect([12, 20].map((s) => CIELO_STATUS[s])).toEqual(['pending', 'pending']);
    expect(CIELO_STATUS[0]).toBe('failed');
    expect([10, 11].map((s) => CIELO_STATUS[s])).toEqual(['voided', 'voided']);
    expect(CIELO_STATUS[13]).toBe('failed');
    expect(CIELO_BRANDS).toEqual({ visa: 'Visa', mastercard: 'Master', amex: 'Amex', elo: 'Elo', hipercard: 'Hipercard' });
  });
});
