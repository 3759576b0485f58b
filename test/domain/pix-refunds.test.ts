import { describe, expect, it } from 'vitest';
import { devolucaoIdOf, pixRefundAmountOf, refundableOf } from '../../src/domain/pix-refunds.js';

const paid = { status: 'Paid', amount: 10000n, refunded: 0n, inProcess: 0n };

describe('Pix refund amounts', () => {
  it('takes what is left when no amount is asked, counting returns made and in flight', () => {
    expect(pixRefundAmountOf(paid, undefined)).toEqual({ ok: true, amount: 10000n });
    expect(pixRefundAmountOf({ ...paid, refunded: 3000n, inProcess: 2000n }, undefined)).toEqual({ ok: true, amount: 5000n });
    expect(refundableOf({ ...paid, refunded: 3000n, inProcess: 2000n, blocked: 1000n })).toBe(4000n);
  });

  it('refuses past what is left, zero, and a charge not Paid', () => {
    expect(pixRefundAmountOf({ ...paid, refunded: 9000n }, 1001n)).toMatchObject({ ok: false, tag: 'amount' });
    expect(pixRefundAmountOf({ ...paid, refunded: 9000n }, 1000n)).toEqual({ ok: true, amount: 1000n });
    expect(pixRefundAmountOf(paid, 0n)).toMatchObject({ ok: false, tag: 'amount' });
    expect(pixRefundAmountOf({ ...paid, refunded: 10000n }, undefined)).toMatchObject({ ok: false, tag: 'amount', message: 'Nothing is left to refund of this charge.' });
    expect(pixRefundAmountOf({ ...paid, status: 'Pending' }, 100n)).toMatchObject({ ok: false, tag: 'status' });
    expect(pixRefundAmountOf({ ...paid, blocked: 10000n }, 1n)).toMatchObject({ ok: false, tag: 'amount' });
  });

  it('makes a devolução id the API Pix accepts', () => {
    expect(devolucaoIdOf('0190a3b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b')).toMatch(/^[a-zA-Z0-9]{1,35}$/);
  });
});
