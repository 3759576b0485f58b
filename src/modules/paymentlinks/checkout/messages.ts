/** What the payer reads about a payment's outcome (Portuguese; the API's codes stay as they are). */
const DECLINES: Record<string, string> = {
  '05': 'Pagamento não autorizado pelo banco emissor do cartão. Tente outro cartão ou fale com o seu banco.',
  '51': 'Pagamento não autorizado: saldo ou limite insuficiente.',
  '54': 'Pagamento não autorizado: o cartão está vencido.',
  '46': 'Pagamento não autorizado: o cartão foi cancelado.',
  '59': 'Pagamento não autorizado pela análise de segurança. Tente outro cartão.',
  '96': 'Não foi possível processar o pagamento agora. Nenhum valor foi cobrado; tente novamente.',
};

export function outcomeMessage(status: string, returnCode: string | null): string {
  if (status === 'Authorized') return 'Pagamento aprovado. Guarde o código de autorização como comprovante.';
  if (status === 'Blocked') return 'Pagamento recebido e em análise de segurança. O vendedor confirmará o pedido.';
  return DECLINES[returnCode ?? ''] ?? 'Pagamento não autorizado. Tente outro cartão.';
}
