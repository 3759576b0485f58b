import { describe, expect, it } from 'vitest';
import { installmentPlan, priceInstallment } from '../../src/domain/installments.js';
import { brl, taxId } from '../../src/domain/format-br.js';
import { escapeHtml, html } from '../../src/http/html.js';

/**
 * Reference vectors computed independently with Python's decimal module at 60 digits:
 * PMT = PV * i / (1 - (1 + i)^-n), rounded half-up to the cent.
 */
describe('Price table installments (exact decimals)', () => {
  const vectors: [cents: bigint, feeScaled: bigint, n: number, pmt: bigint, exact: string][] = [
    [100_000n, 10_000n, 12, 8_885n, '88.84878867834170733998783'], // R$ 1000 at 1 % a month, the textbook example
    [10_000n, 29_900n, 3, 3_535n, '35.34623950490993153772403'],
    [15_000n, 19_900n, 12, 1_418n, '14.17522998729846548218524'],
    [25_000n, 35_000n, 6, 4_692n, '46.91705216632940588045235'],
    [1_000n, 1n, 2, 500n, '5.000007500001249999375000'], // 0.0001 % a month: the half cent never shows
    [9_999_999_999n, 1_000_000n, 12, 10_002_442_001n, '100024420.0144175824175824175'], // 100 % a month on the largest value
  ];
  for (const [cents, fee, n, pmt, exact] of vectors) {
    it(`${brl(cents)} at ${Number(fee) / 10_000} % a month in ${n}x -> ${brl(pmt)} each (exact ${exact})`, () => {
      expect(priceInstallment(cents, fee, n)).toBe(pmt);
      const plan = installmentPlan(cents, n, 1, fee);
      expect(plan).toEqual({ count: n, interestFree: false, installments: Array(n).fill(pmt), total: pmt * BigInt(n) });
    });
  }

  it('one installment with interest is one month of interest (PMT = PV(1+i))', () => {
    expect(priceInstallment(10_000n, 29_900n, 1)).toBe(10_299n);
  });

  it('is interest-free up to the interest-free count: the value itself, leftover cents on installment 1', () => {
    expect(installmentPlan(10_000n, 3, 3, 29_900n)).toEqual({ count: 3, interestFree: true, installments: [3_334n, 3_333n, 3_333n], total: 10_000n });
    expect(installmentPlan(10_000n, 4, 3, 29_900n)).toMatchObject({ interestFree: false, total: 10_760n });
  });

  it('is interest-free at any count when the fee is 0', () => {
    expect(installmentPlan(12_345n, 12, 1, 0n)).toMatchObject({ interestFree: true, total: 12_345n, installments: [1_037n, ...Array(11).fill(1_028n)] });
  });

  it('refuses a zero fee or a count below 1 in the Price formula', () => {
    expect(() => priceInstallment(100n, 0n, 2)).toThrow(RangeError);
    expect(() => priceInstallment(100n, 100n, 0)).toThrow(RangeError);
  });
});

describe('checkout presentation', () => {
  it('formats cents as reais without floats', () => {
    expect(brl(10_605n)).toBe('R$ 106,05');
    expect(brl(5n)).toBe('R$ 0,05');
    expect(brl(123_456_789n)).toBe('R$ 1.234.567,89');
    expect(brl(999_999_999_999n)).toBe('R$ 9.999.999.999,99');
  });

  it('masks tax ids', () => {
    expect(taxId('11222333000181')).toBe('CNPJ 11.222.333/0001-81');
    expect(taxId('52998224725')).toBe('CPF 529.982.247-25');
  });

  it('escapes every interpolated value; only html fragments pass through', () => {
    expect(escapeHtml(`<script>"x" & 'y'</script>`)).toBe('&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;');
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p title="${'" onclick="x'}">${inner}${['<a>', html`<br>`]}</p>`.value).toBe(
      '<p title="&quot; onclick=&quot;x"><b>&lt;i&gt;</b>&lt;a&gt;<br></p>',
    );
  });
});
