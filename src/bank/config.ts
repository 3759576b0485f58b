import { bankLayout } from '../domain/cnab240-banks.js';
import { isValidCpfOrCnpj } from '../domain/documents.js';

/**
 * The bank behind the slips (BANK_SLIP_*): who the beneficiary is at the bank (the operator's
 * company, which holds the collection agreement; merchants are printed as sacador/avalista),
 * its agency, account and agreement (convênio), as the CNAB files and the printed slip need them.
 *
 * BANK_SLIP_PROVIDER: `sandbox` (default) registers slips at once (statusIntegration 2 when the
 * barcode is made, as the sandbox bank does); `cnab` leaves statusIntegration 1 until the bank's
 * return file confirms the entry (movement 02) and requires every BANK_SLIP_* value below: a
 * remittance with an invented agency would be refused by the bank, or worse, accepted.
 */
export interface BankConfig {
  provider: 'sandbox' | 'cnab';
  bankName: string;
  beneficiaryName: string;
  beneficiaryDocument: string;
  beneficiaryAddress: string;
  agency: string;
  agencyDv: string;
  account: string;
  accountDv: string;
  agreement: string;
  /** Carteira as the bank names it (printed on the slip; segment P position 58 is derived from it). */
  wallet: string;
  /** Variação da carteira (Banco do Brasil's file and batch headers); '' when not set. */
  walletVariation: string;
}

type Env = Record<string, string | undefined>;
type Fail = (message: string) => never;

/** What the sandbox prints and writes when BANK_SLIP_* is not set: obviously not a real account. */
const SANDBOX: Omit<BankConfig, 'provider'> = {
  bankName: 'BANCO SANDBOX',
  beneficiaryName: 'Gateway Sandbox Pagamentos Ltda',
  beneficiaryDocument: '11222333000181',
  beneficiaryAddress: 'Av. Paulista, 1000, Bela Vista, Sao Paulo/SP, 01310-100',
  agency: '0001',
  agencyDv: '9',
  account: '123456',
  accountDv: '7',
  agreement: '1234567',
  wallet: '1',
  walletVariation: '',
};

/** The sandbox's carteira where the bank's layout names its own (a slip of BB's most common carteira 17, variação 019). */
const SANDBOX_WALLETS: Record<string, { wallet: string; walletVariation: string }> = { '001': { wallet: '17', walletVariation: '019' } };

const REQUIRED = ['BANK_SLIP_BENEFICIARY_NAME', 'BANK_SLIP_BENEFICIARY_DOCUMENT', 'BANK_SLIP_BENEFICIARY_ADDRESS', 'BANK_SLIP_AGENCY', 'BANK_SLIP_ACCOUNT', 'BANK_SLIP_AGREEMENT'] as const;

/** `1234-5` or `1234`: digits, with an optional check digit after a dash. */
function numberWithDv(value: string, name: string, maxDigits: number, fail: Fail): [string, string] {
  const m = /^(\d{1,})(?:-([0-9A-Za-z]))?$/.exec(value.trim());
  if (!m || m[1].length > maxDigits) fail(`${name} must be up to ${maxDigits} digits with an optional check digit after a dash (e.g. 1234-5), got "${value}"`);
  return [m![1], (m![2] ?? '').toUpperCase()];
}

export function loadBankConfig(env: Env, fail: Fail): BankConfig {
  const provider = (env.BANK_SLIP_PROVIDER?.trim() || 'sandbox') as BankConfig['provider'];
  if (provider !== 'sandbox' && provider !== 'cnab') fail(`BANK_SLIP_PROVIDER must be "sandbox" or "cnab", got "${provider}"`);
  const set = (name: string) => env[name]?.trim() || undefined;
  const bankCode = env.BANK_SLIP_BANK_CODE?.trim() || '001';
  const layout = bankLayout(bankCode);
  if (provider === 'cnab') {
    const missing = [...REQUIRED, ...layout.requiredSettings].filter((name) => set(name) === undefined);
    if (missing.length) fail(`BANK_SLIP_PROVIDER=cnab needs ${missing.join(', ')} (the bank's remittance files and the printed slip carry them)`);
  }
  const [agency, agencyDv] = numberWithDv(set('BANK_SLIP_AGENCY') ?? `${SANDBOX.agency}-${SANDBOX.agencyDv}`, 'BANK_SLIP_AGENCY', 5, fail);
  const [account, accountDv] = numberWithDv(set('BANK_SLIP_ACCOUNT') ?? `${SANDBOX.account}-${SANDBOX.accountDv}`, 'BANK_SLIP_ACCOUNT', 12, fail);
  const document = set('BANK_SLIP_BENEFICIARY_DOCUMENT') ?? SANDBOX.beneficiaryDocument;
  if (!isValidCpfOrCnpj(document)) fail('BANK_SLIP_BENEFICIARY_DOCUMENT must be a valid CPF or CNPJ, digits only');
  // The layout's own rules (src/domain/cnab240-banks.ts): what its file fields can carry.
  const defaults = SANDBOX_WALLETS[bankCode] ?? SANDBOX;
  const agreement = set('BANK_SLIP_AGREEMENT') ?? SANDBOX.agreement;
  const agreementProblem = layout.checkAgreement(agreement);
  if (agreementProblem) fail(agreementProblem);
  const wallet = set('BANK_SLIP_WALLET') ?? defaults.wallet;
  const walletVariation = set('BANK_SLIP_WALLET_VARIATION') ?? defaults.walletVariation;
  if (walletVariation !== '' && !/^\d{1,3}$/.test(walletVariation)) fail(`BANK_SLIP_WALLET_VARIATION (variação da carteira) must be 1 to 3 digits, got "${walletVariation}"`);
  const walletProblem = layout.checkWallet(wallet, walletVariation);
  if (walletProblem) fail(walletProblem);
  return {
    provider,
    bankName: set('BANK_SLIP_BANK_NAME') ?? SANDBOX.bankName,
    beneficiaryName: set('BANK_SLIP_BENEFICIARY_NAME') ?? SANDBOX.beneficiaryName,
    beneficiaryDocument: document,
    beneficiaryAddress: set('BANK_SLIP_BENEFICIARY_ADDRESS') ?? SANDBOX.beneficiaryAddress,
    agency,
    agencyDv,
    account,
    accountDv,
    agreement,
    wallet,
    walletVariation,
  };
}
