import { describe, expect, it } from 'vitest';
import { isMunicipalityCode, STATES } from '../../src/domain/address.js';

describe('Brazilian address facts', () => {
  it('holds the 27 federative units, once each', () => {
    expect(STATES).toHaveLength(27);
    expect(new Set(STATES).size).toBe(27);
    for (const uf of STATES) expect(uf).toMatch(/^[A-Z]{2}$/);
  });

  it("takes an IBGE municipality code by its shape and its state part (IBGE's code of a federative unit)", () => {
    // São Paulo, Brasília, Porto Velho, Porto Alegre, Cuiabá, Rio Branco.
    for (const code of ['3550308', '5300108', '1100205', '4314902', '5103403', '1200401']) expect(isMunicipalityCode(code), code).toBe(true);
    // No unit has the codes 10, 18-20, 30, 34, 36-40, 44-49, 54 and up.
    for (const code of ['1000000', '1812345', '3012345', '3412345', '3612345', '4412345', '5412345', '9912345', '0012345']) expect(isMunicipalityCode(code), code).toBe(false);
    for (const code of ['355030', '35503080', '355030a', ' 3550308', '', '3550-308']) expect(isMunicipalityCode(code), code).toBe(false);
  });
});
