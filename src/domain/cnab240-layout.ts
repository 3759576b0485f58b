import type { Layout } from './cnab240.js';

/**
 * FEBRABAN CNAB 240, "cobrança" (bank slips): the records this gateway writes (remessa: file and
 * batch headers, segments P, Q, R, trailers) and reads (retorno: headers, segments T, U,
 * trailers). Positions as FEBRABAN's manual prints them (1-based, inclusive); every layout
 * covers 1-240 exactly (test/domain/cnab240.test.ts). Fields a bank fills for itself or that
 * this gateway never uses are declared as blanks or zeros, never left out, so that a position
 * can be looked up here. The inscription numbers (CPF/CNPJ) are `doc` fields, as FEBRABAN's
 * adaptation for the alphanumeric CNPJ defines them. Banks' differences are overlays on these
 * records (src/domain/cnab240-banks.ts).
 */

/** Registro 0: header de arquivo. */
export const FILE_HEADER: Layout = [
  ['bank', 1, 3, 'num'],
  ['batch', 4, 7, 'num', '0000'],
  ['recordType', 8, 8, 'num', '0'],
  ['febraban1', 9, 17, 'alpha'],
  ['companyDocumentType', 18, 18, 'num'],
  ['companyDocument', 19, 32, 'doc'],
  ['agreement', 33, 52, 'alpha'],
  ['agency', 53, 57, 'num'],
  ['agencyDv', 58, 58, 'alpha'],
  ['account', 59, 70, 'num'],
  ['accountDv', 71, 71, 'alpha'],
  ['agencyAccountDv', 72, 72, 'alpha'],
  ['companyName', 73, 102, 'alpha'],
  ['bankName', 103, 132, 'alpha'],
  ['febraban2', 133, 142, 'alpha'],
  /** 1 remessa (to the bank), 2 retorno (from the bank). */
  ['direction', 143, 143, 'num'],
  ['generatedDate', 144, 151, 'num'],
  ['generatedTime', 152, 157, 'num'],
  ['fileNumber', 158, 163, 'num'],
  ['layoutVersion', 164, 166, 'num'],
  ['density', 167, 171, 'num'],
  ['bankReserved', 172, 191, 'alpha'],
  ['companyReserved', 192, 211, 'alpha'],
  ['febraban3', 212, 240, 'alpha'],
];

/** Registro 1: header de lote (cobrança). */
export const BATCH_HEADER: Layout = [
  ['bank', 1, 3, 'num'],
  ['batch', 4, 7, 'num'],
  ['recordType', 8, 8, 'num', '1'],
  /** R remessa, T retorno. */
  ['operation', 9, 9, 'alpha'],
  /** 01: cobrança. */
  ['service', 10, 11, 'num', '01'],
  ['febraban1', 12, 13, 'alpha'],
  ['layoutVersion', 14, 16, 'num'],
  ['febraban2', 17, 17, 'alpha'],
  ['companyDocumentType', 18, 18, 'num'],
  ['companyDocument', 19, 33, 'doc'],
  ['agreement', 34, 53, 'alpha'],
  ['agency', 54, 58, 'num'],
  ['agencyDv', 59, 59, 'alpha'],
  ['account', 60, 71, 'num'],
  ['accountDv', 72, 72, 'alpha'],
  ['agencyAccountDv', 73, 73, 'alpha'],
  ['companyName', 74, 103, 'alpha'],
  ['message1', 104, 143, 'alpha'],
  ['message2', 144, 183, 'alpha'],
  ['fileNumber', 184, 191, 'num'],
  ['recordedDate', 192, 199, 'num'],
  ['creditDate', 200, 207, 'num'],
  ['febraban3', 208, 240, 'alpha'],
];

/** Positions 1-17 of every detail record (registro 3). */
const DETAIL_START: Layout = [
  ['bank', 1, 3, 'num'],
  ['batch', 4, 7, 'num'],
  ['recordType', 8, 8, 'num', '3'],
  ['sequence', 9, 13, 'num'],
  ['segment', 14, 14, 'alpha'],
  ['febraban1', 15, 15, 'alpha'],
  /** Remessa: 01 entrada de título, 02 pedido de baixa. Retorno: FEBRABAN's "código de movimento retorno". */
  ['movement', 16, 17, 'num'],
];

/** Segment P (remessa): the slip and its charges. */
export const SEGMENT_P: Layout = [
  ...DETAIL_START,
  ['agency', 18, 22, 'num'],
  ['agencyDv', 23, 23, 'alpha'],
  ['account', 24, 35, 'num'],
  ['accountDv', 36, 36, 'alpha'],
  ['agencyAccountDv', 37, 37, 'alpha'],
  ['ourNumber', 38, 57, 'alpha'],
  ['wallet', 58, 58, 'num'],
  /** 1: com cadastramento (registered). */
  ['registration', 59, 59, 'num', '1'],
  /** 1: tradicional. */
  ['documentKind', 60, 60, 'alpha', '1'],
  /** 2: the beneficiary (this gateway) prints the slip and sends it to the payer. */
  ['issuer', 61, 61, 'num', '2'],
  ['distribution', 62, 62, 'alpha', '2'],
  ['documentNumber', 63, 77, 'alpha'],
  ['dueDate', 78, 85, 'num'],
  ['value', 86, 100, 'num'],
  ['collectingAgency', 101, 105, 'num'],
  ['collectingAgencyDv', 106, 106, 'alpha'],
  ['species', 107, 108, 'num'],
  ['acceptance', 109, 109, 'alpha'],
  ['issueDate', 110, 117, 'num'],
  /** 2: taxa mensal; 3: isento. */
  ['interestCode', 118, 118, 'num'],
  ['interestDate', 119, 126, 'num'],
  ['interestRate', 127, 141, 'num'],
  /** 0: sem desconto. */
  ['discountCode', 142, 142, 'num'],
  ['discountDate', 143, 150, 'num'],
  ['discountValue', 151, 165, 'num'],
  ['iofValue', 166, 180, 'num'],
  ['abatementValue', 181, 195, 'num'],
  ['companyReference', 196, 220, 'alpha'],
  /** 3: não protestar. */
  ['protestCode', 221, 221, 'num', '3'],
  ['protestDays', 222, 223, 'num'],
  /** 1: baixar / devolver after `writeOffDays` calendar days past the due date. */
  ['writeOffCode', 224, 224, 'num'],
  ['writeOffDays', 225, 227, 'alpha'],
  /** 09: real. */
  ['currency', 228, 229, 'num', '09'],
  ['contract', 230, 239, 'num'],
  ['free', 240, 240, 'alpha'],
];

/** Segment Q (remessa): the payer and the sacador/avalista. */
export const SEGMENT_Q: Layout = [
  ...DETAIL_START,
  /** 1 CPF, 2 CNPJ. */
  ['payerDocumentType', 18, 18, 'num'],
  ['payerDocument', 19, 33, 'doc'],
  ['payerName', 34, 73, 'alpha'],
  ['payerAddress', 74, 113, 'alpha'],
  ['payerNeighborhood', 114, 128, 'alpha'],
  ['payerZip', 129, 133, 'num'],
  ['payerZipSuffix', 134, 136, 'num'],
  ['payerCity', 137, 151, 'alpha'],
  ['payerState', 152, 153, 'alpha'],
  ['guarantorDocumentType', 154, 154, 'num'],
  ['guarantorDocument', 155, 169, 'doc'],
  ['guarantorName', 170, 209, 'alpha'],
  ['correspondentBank', 210, 212, 'num'],
  ['correspondentOurNumber', 213, 232, 'alpha'],
  ['febraban2', 233, 240, 'alpha'],
];

/** Segment R (remessa): penalty (multa), further discounts, messages. */
export const SEGMENT_R: Layout = [
  ...DETAIL_START,
  ['discount2Code', 18, 18, 'num'],
  ['discount2Date', 19, 26, 'num'],
  ['discount2Value', 27, 41, 'num'],
  ['discount3Code', 42, 42, 'num'],
  ['discount3Date', 43, 50, 'num'],
  ['discount3Value', 51, 65, 'num'],
  /** 0 isento, 2 percentual. */
  ['penaltyCode', 66, 66, 'alpha'],
  ['penaltyDate', 67, 74, 'num'],
  ['penaltyRate', 75, 89, 'num'],
  ['payerInfo', 90, 99, 'alpha'],
  ['message3', 100, 139, 'alpha'],
  ['message4', 140, 179, 'alpha'],
  ['febraban2', 180, 199, 'alpha'],
  ['payerOccurrence', 200, 207, 'num'],
  ['debitBank', 208, 210, 'num'],
  ['debitAgency', 211, 215, 'num'],
  ['debitAgencyDv', 216, 216, 'alpha'],
  ['debitAccount', 217, 228, 'num'],
  ['debitAccountDv', 229, 229, 'alpha'],
  ['debitAgencyAccountDv', 230, 230, 'alpha'],
  ['debitNotice', 231, 231, 'num'],
  ['febraban3', 232, 240, 'alpha'],
];

/** Segment T (retorno): what happened to the slip, the bank's reasons. */
export const SEGMENT_T: Layout = [
  ...DETAIL_START,
  ['agency', 18, 22, 'num'],
  ['agencyDv', 23, 23, 'alpha'],
  ['account', 24, 35, 'num'],
  ['accountDv', 36, 36, 'alpha'],
  ['agencyAccountDv', 37, 37, 'alpha'],
  ['ourNumber', 38, 57, 'alpha'],
  ['wallet', 58, 58, 'num'],
  ['documentNumber', 59, 73, 'alpha'],
  ['dueDate', 74, 81, 'num'],
  ['value', 82, 96, 'num'],
  ['collectingBank', 97, 99, 'num'],
  ['collectingAgency', 100, 104, 'num'],
  ['collectingAgencyDv', 105, 105, 'alpha'],
  ['companyReference', 106, 130, 'alpha'],
  ['currency', 131, 132, 'num'],
  ['payerDocumentType', 133, 133, 'num'],
  ['payerDocument', 134, 148, 'doc'],
  ['payerName', 149, 188, 'alpha'],
  ['contract', 189, 198, 'num'],
  ['fee', 199, 213, 'num'],
  /** Up to five 2-character codes (FEBRABAN's "motivo da ocorrência"). */
  ['reasons', 214, 223, 'alpha'],
  ['febraban2', 224, 240, 'alpha'],
];

/** Segment U (retorno): amounts and dates of a payment. */
export const SEGMENT_U: Layout = [
  ...DETAIL_START,
  /** Juros, multa and encargos together: FEBRABAN has one field for penalty and interest. */
  ['charges', 18, 32, 'num'],
  ['discount', 33, 47, 'num'],
  ['abatement', 48, 62, 'num'],
  ['iof', 63, 77, 'num'],
  ['paidValue', 78, 92, 'num'],
  ['netValue', 93, 107, 'num'],
  ['otherExpenses', 108, 122, 'num'],
  ['otherCredits', 123, 137, 'num'],
  ['occurrenceDate', 138, 145, 'num'],
  ['creditDate', 146, 153, 'num'],
  ['payerOccurrence', 154, 157, 'alpha'],
  ['payerOccurrenceDate', 158, 165, 'num'],
  ['payerOccurrenceValue', 166, 180, 'num'],
  ['payerOccurrenceText', 181, 210, 'alpha'],
  ['correspondentBank', 211, 213, 'num'],
  ['correspondentOurNumber', 214, 233, 'alpha'],
  ['febraban2', 234, 240, 'alpha'],
];

/** Registro 5: trailer de lote. The record count includes the batch's header and trailer. */
export const BATCH_TRAILER: Layout = [
  ['bank', 1, 3, 'num'],
  ['batch', 4, 7, 'num'],
  ['recordType', 8, 8, 'num', '5'],
  ['febraban1', 9, 17, 'alpha'],
  ['records', 18, 23, 'num'],
  ['simpleCount', 24, 29, 'num'],
  ['simpleTotal', 30, 46, 'num'],
  ['boundCount', 47, 52, 'num'],
  ['boundTotal', 53, 69, 'num'],
  ['securedCount', 70, 75, 'num'],
  ['securedTotal', 76, 92, 'num'],
  ['discountedCount', 93, 98, 'num'],
  ['discountedTotal', 99, 115, 'num'],
  ['notice', 116, 123, 'alpha'],
  ['febraban2', 124, 240, 'alpha'],
];

/** Registro 9: trailer de arquivo. The record count includes every record of the file. */
export const FILE_TRAILER: Layout = [
  ['bank', 1, 3, 'num'],
  ['batch', 4, 7, 'num', '9999'],
  ['recordType', 8, 8, 'num', '9'],
  ['febraban1', 9, 17, 'alpha'],
  ['batches', 18, 23, 'num'],
  ['records', 24, 29, 'num'],
  ['accounts', 30, 35, 'num'],
  ['febraban2', 36, 240, 'alpha'],
];

/**
 * The layout versions written in the headers (file 103, batch 060, as in FEBRABAN 240 v10). Each
 * bank layout carries its own (src/domain/cnab240-banks.ts); the import does not check them
 * (banks answer with their own).
 */
export const FILE_LAYOUT_VERSION = '103';
export const BATCH_LAYOUT_VERSION = '060';
