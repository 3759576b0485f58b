import type { CardBrand } from '../../domain/cards.js';

/**
 * Chargeback reason codes per card brand, as Cielo's chargeback notifications (its Risk
 * Notification API) send them, with their messages in pt-BR: Visa's in Cielo's three-digit form
 * (104 is Visa's 10.4, which is taken too), Mastercard's and Hipercard's four-digit ones, Elo's two-digit ones, and
 * Amex's. `fraud`: the cardholder says the sale was not theirs. A new code is a line here.
 */
export interface ReasonCode {
  message: string;
  fraud: boolean;
}

type Table = Record<string, ReasonCode>;
const r = (message: string, fraud = false): ReasonCode => ({ message, fraud });

const VISA: Table = {
  '101': r('Responsabilidade EMV - cartão falsificado', true),
  '102': r('Responsabilidade EMV - sem falsificação', true),
  '103': r('Outras fraudes - cartão presente', true),
  '104': r('Outras fraudes - cartão ausente', true),
  '105': r('Programa Visa de monitoramento de fraude', true),
  '111': r('Boletim de recuperação de cartões'),
  '112': r('Autorização recusada'),
  '113': r('Sem autorização'),
  '121': r('Apresentação tardia'),
  '122': r('Código de transação incorreto'),
  '123': r('Moeda incorreta'),
  '124': r('Número de conta incorreto'),
  '125': r('Valor incorreto'),
  '126': r('Processamento duplicado ou pago por outro meio'),
  '127': r('Dados inválidos'),
  '131': r('Mercadoria ou serviço não recebido'),
  '132': r('Recorrência cancelada'),
  '133': r('Mercadoria ou serviço com defeito ou diferente do descrito'),
  '134': r('Mercadoria falsificada'),
  '135': r('Venda enganosa'),
  '136': r('Crédito não processado'),
  '137': r('Mercadoria ou serviço cancelado'),
  '138': r('Transação de crédito original não aceita'),
};

const MASTERCARD: Table = {
  '4807': r('Arquivo boletim de advertência'),
  '4808': r('Autorização requerida não obtida'),
  '4812': r('Número da conta não consta no arquivo'),
  '4831': r('Valor da transação diferente'),
  '4834': r('Erro de processamento'),
  '4835': r('Cartão inválido ou vencido'),
  '4837': r('Sem autorização do portador do cartão', true),
  '4840': r('Processamento fraudulento da transação', true),
  '4841': r('Transação recorrente cancelada'),
  '4842': r('Apresentação tardia'),
  '4846': r('Código da moeda da transação não fornecido'),
  '4847': r('Acima do limite de piso, transação não autorizada'),
  '4849': r('Estabelecimento com atividade suspeita', true),
  '4850': r('Portador não reconhece', true),
  '4853': r('Desacordo comercial'),
  '4854': r('Contestação do portador (EUA)', true),
  '4855': r('Mercadoria não recebida'),
  '4857': r('Transação telefônica ativada por cartão'),
  '4859': r('Serviços não prestados'),
  '4860': r('Crédito não processado'),
  '4862': r('Transação falsificada com tarja magnética', true),
  '4863': r('Portador não reconhece a transação (potencial fraude)', true),
  '4870': r('Transferência de responsabilidade do chip', true),
  '4871': r('Transferência de responsabilidade do chip e senha', true),
};

const ELO: Table = {
  '30': r('Serviço não prestado ou mercadoria não recebida'),
  '41': r('Transação recorrente cancelada'),
  '53': r('Mercadoria com defeito ou em desacordo'),
  '62': r('Transação falsificada (transferência de responsabilidade)', true),
  '70': r('Cartão em boletim'),
  '71': r('Autorização negada'),
  '72': r('Sem autorização'),
  '73': r('Cartão vencido'),
  '74': r('Apresentação tardia'),
  '75': r('Portador não se lembra da transação', true),
  '76': r('Moeda inválida'),
  '80': r('Valor da transação ou número do cartão incorreto'),
  '81': r('Fraude em ambiente de cartão presente', true),
  '82': r('Duplicidade de processamento'),
  '83': r('Fraude em ambiente de cartão não presente', true),
  '85': r('Crédito não processado'),
  '86': r('Pagamento por outros meios'),
};

const AMEX: Table = {
  '4507': r('Valor da transação ou número de conta incorreto'),
  '4512': r('Múltiplos processamentos'),
  '4513': r('Crédito não processado'),
  '4515': r('Pagamento por outros meios'),
  '4521': r('Autorização inválida'),
  '4534': r('Múltiplos comprovantes de venda'),
  '4536': r('Apresentação tardia'),
  '4540': r('Cartão não presente', true),
  '4544': r('Cancelamento de bens ou serviços recorrentes'),
  '4553': r('Mercadoria com defeito ou diferente da descrita'),
  '4554': r('Bens ou serviços não recebidos'),
  '4755': r('Sem autorização válida'),
  '4763': r('Direito de regresso integral por fraude', true),
  '4798': r('Transferência de responsabilidade por fraude', true),
};

/** Hipercard follows Mastercard's numbering. */
export const REASON_CODES: Record<CardBrand, Table> = { visa: VISA, mastercard: MASTERCARD, elo: ELO, amex: AMEX, hipercard: MASTERCARD };

/**
 * MED claims (brand PIX): the API Pix's return reasons of its two MED natures (DevolucaoNatureza:
 * BE08 an operational failure of the payer's PSP, FR01 a well-founded suspicion of fraud).
 */
export const MED_REASON_CODES: Record<string, ReasonCode & { nature: 'MED_OPERACIONAL' | 'MED_FRAUDE' }> = {
  FR01: { message: 'Fundada suspeita de fraude (MED)', fraud: true, nature: 'MED_FRAUDE' },
  BE08: { message: 'Falha operacional do PSP do pagador (MED)', fraud: false, nature: 'MED_OPERACIONAL' },
};

/**
 * Visa writes its dispute conditions `10.4`; Cielo sends the same code as `104`. Both are taken:
 * the dotted form is read as Cielo's.
 */
function tableCode(brand: string, code: string): string {
  const dotted = brand === 'visa' ? /^(1[0-3])\.([0-9])$/.exec(code) : null;
  return dotted ? `${dotted[1]}${dotted[2]}` : code;
}

/** A code in its brand's own notation: Visa's three-digit Cielo codes as `10.4`; the others as they are. */
export function brandNotation(brand: string, code: string): string {
  const canonical = tableCode(brand, code);
  return brand === 'visa' && /^1[0-3][0-9]$/.test(canonical) ? `${canonical.slice(0, 2)}.${canonical.slice(2)}` : canonical;
}

/** The reason of `code` for a payment of `brand` (PIX: a MED claim), or undefined when that brand has no such code. */
export function reasonOf(brand: string, code: string): ReasonCode | undefined {
  if (brand === 'PIX') return Object.hasOwn(MED_REASON_CODES, code) ? MED_REASON_CODES[code] : undefined;
  const table = REASON_CODES[brand as CardBrand];
  const key = tableCode(brand, code);
  return table && Object.hasOwn(table, key) ? table[key] : undefined;
}
