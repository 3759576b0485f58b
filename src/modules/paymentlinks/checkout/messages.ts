/** What the payer reads about a payment's outcome (Portuguese; the API's codes stay as they are). */
const DECLINES: Record<string, string> = {
  '05': 'Pagamento não autorizado pelo banco emissor do cartão. Tente outro cartão ou fale com o seu banco.',
  // Our own 05: the 3-D Secure authentication failed (nothing was sent to the acquirer).
  authentication: 'O banco emissor não confirmou a sua identidade; nada foi cobrado. Tente novamente ou use outro cartão.',
  '51': 'Pagamento não autorizado: saldo ou limite insuficiente.',
  '54': 'Pagamento não autorizado: o cartão está vencido.',
  '46': 'Pagamento não autorizado: o cartão foi cancelado.',
  '59': 'Pagamento não autorizado pela análise de segurança. Tente outro cartão.',
  '96': 'Não foi possível processar o pagamento agora. Nenhum valor foi cobrado; tente novamente.',
};

export function outcomeMessage(status: string, returnCode: string | null, notAuthenticated = false): string {
  if (notAuthenticated) return DECLINES.authentication!;
  if (status === 'PendingAuthentication') return 'Confirme a compra com o seu banco na janela abaixo.';
  if (status === 'Authorized') return 'Pagamento aprovado. Guarde o código de autorização como comprovante.';
  if (status === 'Blocked') return 'Pagamento recebido e em análise de segurança. O vendedor confirmará o pedido.';
  return DECLINES[returnCode ?? ''] ?? 'Pagamento não autorizado. Tente outro cartão.';
}
