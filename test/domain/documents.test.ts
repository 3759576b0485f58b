import { describe, expect, it } from 'vitest';
import { documentType, isValidCnpj, isValidCpf, isValidCpfOrCnpj } from '../../src/domain/documents.js';

describe('CPF', () => {
  it('accepts the reference vectors', () => {
    expect(isValidCpf('52998224725')).toBe(true);
    expect(isValidCpf('11144477735')).toBe(true);
  });

  it('rejects a wrong first or second check digit', () => {
    expect(isValidCpf('52998224715')).toBe(false);
    expect(isValidCpf('52998224724')).toBe(false);
    expect(isValidCpf('11144477736')).toBe(false);
  });

  it('rejects all-equal digits even though their check digits compute', () => {
    expect(isValidCpf('00000000000')).toBe(false);
    expect(isValidCpf('11111111111')).toBe(false);
    expect(isValidCpf('99999999999')).toBe(false);
  });

  it('rejects masks, wrong lengths and letters', () => {
    expect(isValidCpf('529.982.247-25')).toBe(false);
    expect(isValidCpf('5299822472')).toBe(false);
    expect(isValidCpf('529982247250')).toBe(false);
    expect(isValidCpf('5299822472A')).toBe(false);
    expect(isValidCpf('')).toBe(false);
  });
});

describe('CNPJ', () => {
  it('accepts numeric CNPJs', () => {
    expect(isValidCnpj('11222333000181')).toBe(true);
    expect(isValidCnpj('00000000000191')).toBe(true);
  });

  it('accepts the alphanumeric CNPJ of IN RFB 2.229/2024 (A = 17)', () => {
    expect(isValidCnpj('12ABC34501DE35')).toBe(true);
    expect(isValidCnpj('ABCDEFGHIJKL80')).toBe(true);
  });

  it('rejects wrong check digits', () => {
    expect(isValidCnpj('11222333000182')).toBe(false);
    expect(isValidCnpj('11222333000191')).toBe(false);
    expect(isValidCnpj('12ABC34501DE36')).toBe(false);
    expect(isValidCnpj('12ABC34501DF35')).toBe(false);
  });

  it('rejects lower case, masks, letters in the check digits and all-equal digits', () => {
    expect(isValidCnpj('12abc34501de35')).toBe(false);
    expect(isValidCnpj('11.222.333/0001-81')).toBe(false);
    expect(isValidCnpj('12ABC34501DEA5')).toBe(false);
    expect(isValidCnpj('00000000000000')).toBe(false);
    expect(isValidCnpj('1122233300018')).toBe(false);
  });
});

describe('documentType / isValidCpfOrCnpj', () => {
  it('classifies valid documents by length', () => {
    expect(documentType('52998224725')).toBe('cpf');
    expect(documentType('11222333000181')).toBe('cnpj');
    expect(documentType('12ABC34501DE35')).toBe('cnpj');
  });

  it('is null for invalid documents of either length', () => {
    expect(documentType('52998224726')).toBeNull();
    expect(documentType('11222333000180')).toBeNull();
    expect(documentType('123')).toBeNull();
    expect(documentType('')).toBeNull();
  });

  it('isValidCpfOrCnpj agrees', () => {
    expect(isValidCpfOrCnpj('11144477735')).toBe(true);
    expect(isValidCpfOrCnpj('12ABC34501DE35')).toBe(true);
    expect(isValidCpfOrCnpj('11144477734')).toBe(false);
    expect(isValidCpfOrCnpj('1114447773')).toBe(false);
  });
});
