import { describe, expect, it } from 'vitest';
import { REASON_CODES, reasonOf } from '../../src/modules/disputes/reason-codes.js';

describe('chargeback reason codes', () => {
  it('has the codes of every brand the gateway charges, each with a message', () => {
    for (const [brand, table] of Object.entries(REASON_CODES)) {
      expect(Object.keys(table).length, brand).toBeGreaterThan(10);
      for (const [code, reason] of Object.entries(table)) expect(reason.message.length, `${brand} ${code}`).toBeGreaterThan(3);
    }
  });

  it('answers a code by the payment\'s brand only', () => {
    expect(reasonOf('visa', '104')).toEqual({ message: 'Outras fraudes - cartão ausente', fraud: true });
    expect(reasonOf('mastercard', '4853')).toEqual({ message: 'Desacordo comercial', fraud: false });
    expect(reasonOf('elo', '83')).toMatchObject({ fraud: true });
    expect(reasonOf('hipercard', '4837')).toEqual(reasonOf('mastercard', '4837'));
    expect(reasonOf('visa', '4837')).toBeUndefined();
    expect(reasonOf('visa', 'toString')).toBeUndefined();
    expect(reasonOf('diners', '4837')).toBeUndefined();
  });
});
