import { STATES, type State } from '../../domain/address.js';
import type { ErrorItem } from '../../domain/errors.js';
import type { MerchantRow } from './repository.js';

/**
 * A merchant's address, as a payer's bank shows the receiver of a Pix charge (API Pix
 * `DadosComplementaresPessoa`: `logradouro`, `cidade`, `uf`, `cep`).
 */
export interface MerchantAddress {
  /** Street, number and district on one line (`logradouro`). */
  street: string;
  city: string;
  /** A federative unit (UF), two upper-case letters. */
  state: string;
  /** CEP, 8 digits. */
  zipCode: string;
}

/** The API Pix's `maxLength` of `logradouro` and `cidade`. */
export const ADDRESS_TEXT_MAX = 200;

type AddressColumns = Pick<MerchantRow, 'address_street' | 'address_city' | 'address_state' | 'address_zip_code'>;

export const NO_ADDRESS: AddressColumns = { address_street: null, address_city: null, address_state: null, address_zip_code: null };

/**
 * The address checked as the API Pix's patterns say (every problem at once, tagged `prefix` +
 * field) and as the table keeps it. The route schema checks the same; this holds for every
 * caller of the service.
 */
export function checkAddress(address: MerchantAddress, prefix: string): { ok: true; columns: AddressColumns } | { ok: false; problems: ErrorItem[] } {
  const problems: ErrorItem[] = [];
  const text = (field: 'street' | 'city') => {
    const value = address[field]?.trim() ?? '';
    if (!value) problems.push({ tag: `${prefix}${field}`, description: `${prefix}${field} must not be empty.` });
    else if (value.length > ADDRESS_TEXT_MAX) problems.push({ tag: `${prefix}${field}`, description: `${prefix}${field} must have at most ${ADDRESS_TEXT_MAX} characters.` });
    return value;
  };
  const street = text('street');
  const city = text('city');
  if (!STATES.includes(address.state as State)) problems.push({ tag: `${prefix}state`, description: `${prefix}state must be a federative unit (UF) in upper case: ${STATES.join(', ')}.` });
  if (!/^[0-9]{8}$/.test(address.zipCode ?? '')) problems.push({ tag: `${prefix}zipCode`, description: `${prefix}zipCode must be a CEP of 8 digits, no mask.` });
  if (problems.length) return { ok: false, problems };
  return { ok: true, columns: { address_street: street, address_city: city, address_state: address.state, address_zip_code: address.zipCode } };
}

/**
 * The address a merchant registered without one is shown with: a Pix location's receiver
 * (`CobVPayload.recebedor` requires one) and the city its Pix codes name (BR Code field 60).
 * The operator sets the merchant's own with `PUT /admin/merchants/{merchantId}/address`.
 */
export const DEFAULT_ADDRESS: MerchantAddress = { street: 'Praça da Sé, lado ímpar, Sé', city: 'São Paulo', state: 'SP', zipCode: '01001000' };

/** Where the merchant is, as its Pix charges show it: its own address, or the default one. */
export function shownAddress(address: MerchantAddress | null): MerchantAddress {
  return address ?? DEFAULT_ADDRESS;
}

/** The stored address, or null for a merchant registered without one. */
export function addressOf(row: MerchantRow): MerchantAddress | null {
  if (row.address_street === null || row.address_city === null || row.address_state === null || row.address_zip_code === null) return null;
  return { street: row.address_street, city: row.address_city, state: row.address_state, zipCode: row.address_zip_code };
}
