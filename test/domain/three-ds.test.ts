import { describe, expect, it } from 'vitest';
import { externalProblems, liabilityShift, statusOfEci } from '../../src/domain/three-ds.js';
import { planThreeDs } from '../../src/modules/payments/request-rules.js';
import { ApiError } from '../../src/http/errors.js';
import { DEVICE } from '../support/three-ds.js';

const CAVV = 'AAABB2gHA1B5EFNjWQcDAAAAAAA=';

describe('3-D Secure rules', () => {
  it('an eci says authenticated (05, 02), attempted (06, 01), or not (07, 00, anything else)', () => {
    expect(['05', '02', '06', '01', '07', '00', '04'].map(statusOfEci)).toEqual(['Silent', 'Silent', 'Attempt', 'Attempt', 'Fail', 'Fail', 'Fail']);
  });

  it("liability shifts on an authentication; on an attempt under Visa's rule, not Mastercard's", () => {
    expect(liabilityShift('visa', '05')).toBe(true);
    expect(liabilityShift('visa', '06')).toBe(true);
    expect(liabilityShift('elo', '06')).toBe(true);
    expect(liabilityShift('mastercard', '02')).toBe(true);
    expect(liabilityShift('mastercard', '01')).toBe(false);
    expect(liabilityShift('visa', '07')).toBe(false);
    // Another brand's eci is no authentication of this card.
    expect(liabilityShift('mastercard', '05')).toBe(false);
    expect(liabilityShift('visa', null)).toBe(false);
  });

  it('checks an external authentication field by field', () => {
    expect(externalProblems({ cavv: CAVV, eci: '05', version: '2.2.0' })).toEqual([]);
    expect(externalProblems({ cavv: 'a'.repeat(40), eci: '05', version: '2' })).toEqual([]);
    const tags = externalProblems({ cavv: 'not base64!', eci: '5', version: '1.0.2', dsTransactionId: 'x' }).map(([tag]) => tag);
    expect(tags).toEqual(['threeDs.external.cavv', 'threeDs.external.eci', 'threeDs.external.version', 'threeDs.external.dsTransactionId']);
  });

  it('a returnUrl must be https outside the sandbox', () => {
    const body = (returnUrl: string) => ({ threeDs: { returnUrl }, deviceInfo: DEVICE }) as never;
    const tagsOf = (fn: () => unknown) => {
      try {
        fn();
        return [];
      } catch (error) {
        return (error as ApiError).errors.map((e) => e.tag);
      }
    };
    expect(tagsOf(() => planThreeDs(body('http://shop.example/back'), { sandbox: false, hasServer: true }))).toEqual(['threeDs.returnUrl']);
    expect(tagsOf(() => planThreeDs(body('https://shop.example/back'), { sandbox: false, hasServer: true }))).toEqual([]);
    expect(tagsOf(() => planThreeDs(body('http://shop.example/back'), { sandbox: true, hasServer: true }))).toEqual([]);
    expect(tagsOf(() => planThreeDs(body('not a url'), { sandbox: true, hasServer: true }))).toEqual(['threeDs.returnUrl']);
    // No 3DS server: only an external authentication or dataOnly is taken.
    expect(tagsOf(() => planThreeDs(body('https://shop.example/back'), { sandbox: false, hasServer: false }))).toEqual(['threeDs']);
    expect(tagsOf(() => planThreeDs({ threeDs: { external: { cavv: CAVV, eci: '05', version: '2.2.0' } } } as never, { sandbox: false, hasServer: false }))).toEqual([]);
  });
});
