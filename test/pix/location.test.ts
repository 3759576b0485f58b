import { compactVerify, createLocalJWKSet, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertProductionSecrets, loadConfig } from '../../src/config.js';
import { parseBrCode } from '../../src/domain/pix.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { information, issued, slipBody } from '../bankslips/support.js';

const CHARGES = '/gateway/v1/pix/charges';
/** 37 characters: the longest host whose location still fits a BR Code. */
const LONGEST_HOST = 'pay-sandbox-01.gateway.example.com.br';

describe(`the sandbox PSP serves what a bank app reads (${testDialect})`, () => {
  let t: TestApp;
  let headers: Record<string, string>;
  beforeAll(async () => {
    t = await testApp({ env: { PUBLIC_URL: `https://${LONGEST_HOST}` } });
    headers = (await t.merchant()).headers;
  });
  afterAll(() => t.close());

  /** The fields of a code that parses. */
  function brCodeOf(emv: string) {
    const code = parseBrCode(emv);
    if (!code.ok) throw new Error(code.error);
    return code.value;
  }

  /** Reads a code's location as a bank app would (the code carries no scheme; the host is ours). */
  async function readLocation(emv: string) {
    const code = parseBrCode(emv);
    if (!code.ok) throw new Error(code.error);
    const location = code.value.locationUrl as string;
    expect(location.startsWith(`${LONGEST_HOST}/pix/v2/`)).toBe(true);
    const res = await t.inject({ method: 'GET', url: location.slice(LONGEST_HOST.length) });
    return { code: code.value, res };
  }

  it('every code names the whole host, and its location answers a JWS that verifies against the published JWKS and matches the code', async () => {
    const jwks = await t.inject({ method: 'GET', url: '/pix/jwks' });
    expect(jwks.statusCode).toBe(200);
    const keySet = createLocalJWKSet(jwks.json());
    expect(JSON.stringify(jwks.json())).not.toMatch(/"(d|p|q|dp|dq|qi)"/); // public parts only
    for (const [amount, description] of [[1, undefined], [12345, 'Pedido 77'], [99_999_999, 'x'.repeat(140)]] as const) {
      const charge = (await t.inject({ method: 'POST', url: CHARGES, headers, payload: { amount, description } })).json();
      const { code, res } = await readLocation(charge.pixEmv);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/jose/);
      const { payload, protectedHeader } = await compactVerify(res.body, keySet);
      expect(protectedHeader).toMatchObject({ alg: 'PS256', jku: `https://${LONGEST_HOST}/pix/jwks` });
      const body = JSON.parse(new TextDecoder().decode(payload));
      expect(body.txid).toBe(code.txid);
      expect(body.txid).toBe(charge.txid);
      expect(body.valor.original).toBe((Number(code.amountCents) / 100).toFixed(2));
      expect(BigInt(body.valor.original.replace('.', ''))).toBe(BigInt(amount));
      expect(body).toMatchObject({ status: 'ATIVA', chave: '11222333000181', calendario: { expiracao: 3600, criacao: charge.createdAt } });
    }
  });

  it("a bank slip's Pix code is a charge with a due date: its location answers the signed cobv payload, matching the code", async () => {
    const m = await t.merchant({ api: 'integration' });
    const body = slipBody({ value: 150.75, pix: true });
    const slip = await issued(t, m, body);
    const { code, res } = await readLocation(slip.pixEmv);
    expect(res.statusCode).toBe(200);
    const { payload } = await compactVerify(res.body, createLocalJWKSet((await t.inject({ method: 'GET', url: '/pix/jwks' })).json()));
    const cobv = JSON.parse(new TextDecoder().decode(payload));
    expect(cobv.txid).toBe(code.txid);
    expect(code.amountCents).toBeUndefined(); // the day's amount is the location's valor.final
    expect(code.merchantCity).toBe('SAO PAULO'); // the default address's city, as the code writes it
    expect(cobv).toMatchObject({
      valor: { original: '150.75', final: '150.75' },
      calendario: { dataDeVencimento: body.dueDate, validadeAposVencimento: 0 },
      devedor: { cpf: '52998224725', nome: 'Maria da Silva' },
      // Registered without an address: the sandbox's documented default (CobVPayload requires one).
      recebedor: { cnpj: '11222333000181', nome: 'Loja Teste', logradouro: 'Praça da Sé, lado ímpar, Sé', cidade: 'São Paulo', uf: 'SP', cep: '01001000' },
      status: 'ATIVA',
    });
    // Registration retried: the same code (the txid derives from the slip).
    expect((await information(t, m, slip.id)).pixEmv).toBe(slip.pixEmv);
  });

  it('a paid charge reads CONCLUIDA; an unknown txid is 404; a tampered payload does not verify', async () => {
    const charge = (await t.inject({ method: 'POST', url: CHARGES, headers, payload: { amount: 500 } })).json();
    expect((await t.inject({ method: 'POST', url: `/sandbox/pix/${charge.id}/pay`, headers: t.adminHeaders })).statusCode).toBe(200);
    const { res } = await readLocation(charge.pixEmv);
    const keySet = createLocalJWKSet((await t.inject({ method: 'GET', url: '/pix/jwks' })).json());
    const { payload } = await compactVerify(res.body, keySet);
    expect(JSON.parse(new TextDecoder().decode(payload)).status).toBe('CONCLUIDA');
    const [head, , signature] = res.body.split('.');
    const forged = Buffer.from(JSON.stringify({ txid: charge.txid, valor: { original: '0.01' } })).toString('base64url');
    await expect(compactVerify(`${head}.${forged}.${signature}`, keySet)).rejects.toThrow();
    expect(decodeProtectedHeader(res.body).kid).toBe((await t.inject({ method: 'GET', url: '/pix/jwks' })).json().keys[0].kid);
    // A location that shows no charge (unknown, or a txid no charge can have) is the API Pix's 404, whatever the query.
    for (const url of [`/pix/v2/${'a'.repeat(32)}`, `/pix/v2/${'a'.repeat(32)}?DPP=bad`, '/pix/v2/short']) {
      const unknown = await t.inject({ method: 'GET', url });
      expect(unknown.statusCode, url).toBe(404);
      expect(unknown.headers['content-type'], url).toMatch(/^application\/problem\+json/);
      expect(unknown.json(), url).toEqual({ type: 'https://pix.bcb.gov.br/api/v2/error/CobPayloadNaoEncontrado', title: 'Cobrança não encontrada.', status: 404, detail: expect.any(String) });
    }
  });

  it("recebedor carries the merchant's address, set at registration or later through the operator API", async () => {
    const address = { street: 'Rua da Aurora, 325, Boa Vista', city: 'Recife', state: 'PE', zipCode: '50050000' };
    const created = await t.inject({ method: 'POST', url: '/admin/merchants', headers: t.adminHeaders, payload: { name: 'Loja Recife', documentNumber: '52998224725', address } });
    expect(created.statusCode, created.body).toBe(201);
    const merchant = created.json();
    expect(merchant.address).toEqual(address);
    const credential = (await t.inject({ method: 'POST', url: `/admin/merchants/${merchant.merchantId}/credentials`, headers: t.adminHeaders, payload: { scopes: ['payments'] } })).json();
    const token = (await t.inject({ method: 'POST', url: '/gateway/api/auth/token', payload: { userName: credential.userName, password: credential.password } })).json().accessToken;
    const keySet = createLocalJWKSet((await t.inject({ method: 'GET', url: '/pix/jwks' })).json());
    const dueDate = new Date(t.ctx.clock.now().getTime() + 20 * 86_400_000).toISOString().slice(0, 10);
    const charge = (await t.inject({ method: 'POST', url: CHARGES, headers: { authorization: `Bearer ${token}` }, payload: { amount: 5000, dueDate, payer: { documentNumber: '11222333000181', name: 'Cliente SA' } } })).json();
    const read = async () => {
      const { res } = await readLocation(charge.pixEmv);
      expect(res.statusCode, res.body).toBe(200);
      return JSON.parse(new TextDecoder().decode((await compactVerify(res.body, keySet)).payload));
    };
    // A CPF receiver: PessoaFisica with the address (API Pix DadosRecebedor).
    expect((await read()).recebedor).toEqual({ cpf: '52998224725', nome: 'Loja Recife', logradouro: address.street, cidade: 'Recife', uf: 'PE', cep: '50050000' });
    // The code names the same city (BR Code field 60: ASCII, upper case).
    expect(brCodeOf(charge.pixEmv).merchantCity).toBe('RECIFE');

    const moved = { street: 'Avenida Afonso Pena, 1212, Centro', city: 'Belo Horizonte', state: 'MG', zipCode: '30130003' };
    const put = await t.inject({ method: 'PUT', url: `/admin/merchants/${merchant.merchantId}/address`, headers: t.adminHeaders, payload: moved });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({ merchantId: merchant.merchantId, address: moved });
    expect((await read()).recebedor).toMatchObject({ logradouro: moved.street, cidade: 'Belo Horizonte', uf: 'MG', cep: '30130003' });
    const later = (await t.inject({ method: 'POST', url: CHARGES, headers: { authorization: `Bearer ${token}` }, payload: { amount: 700 } })).json();
    expect(brCodeOf(later.pixEmv).merchantCity).toBe('BELO HORIZONTE');
  });
});

describe('PUBLIC_URL and the BR Code location', () => {
  it('refuses at start a PUBLIC_URL whose location cannot fit the code, naming the limit', () => {
    expect(() => loadConfig({ PUBLIC_URL: `https://${LONGEST_HOST}` })).not.toThrow();
    expect(() => loadConfig({ PUBLIC_URL: `https://x${LONGEST_HOST}` })).toThrow(/PUBLIC_URL is too long for Pix codes.*at most 37 characters/s);
    // A host that would not fit the location is refused, never cut.
    expect(() => loadConfig({ PUBLIC_URL: 'https://pagamentos-homologacao.minhaempresa.com.br' })).toThrow(/PUBLIC_URL/);
    // A path prefix counts: the location keeps it.
    expect(() => loadConfig({ PUBLIC_URL: 'https://pay.example.com/a-long-reverse-proxy-prefix/x' })).toThrow(/PUBLIC_URL/);
    // With a PSP the location is the PSP's: PUBLIC_URL does not enter the code.
    expect(() => loadConfig({ PUBLIC_URL: 'https://pagamentos-homologacao.minhaempresa.com.br', PIX_PROVIDER: 'bcb' })).not.toThrow();
  });

  it('keeps the path of PUBLIC_URL in the location', async () => {
    const t = await testApp({ env: { PUBLIC_URL: 'https://gw.example.com/api/' } });
    try {
      const { headers } = await t.merchant();
      const charge = (await t.inject({ method: 'POST', url: CHARGES, headers, payload: { amount: 100 } })).json();
      const code = parseBrCode(charge.pixEmv);
      expect(code.ok && code.value.locationUrl).toBe(`gw.example.com/api/pix/v2/${charge.txid}`);
    } finally {
      await t.close();
    }
  });

  it('refuses a half-configured PSP, naming every missing setting and never echoing a secret', () => {
    const config = loadConfig({ PIX_PROVIDER: 'bcb', PIX_CLIENT_SECRET: 'very-secret-value-123', PIX_CERT_FILE: '/x.pem' });
    let message = '';
    try {
      assertProductionSecrets(config);
    } catch (error) {
      message = (error as Error).message;
    }
    for (const name of ['PIX_API_URL', 'PIX_CLIENT_ID', 'PIX_KEY', 'PIX_WEBHOOK_PATH', 'PIX_WEBHOOK_SECRET', 'PIX_CERT_FILE and PIX_KEY_FILE go together']) expect(message).toContain(name);
    expect(message).not.toContain('very-secret-value-123');
    expect(() => loadConfig({ PIX_PROVIDER: 'psp' })).toThrow(/PIX_PROVIDER must be "sandbox" or "bcb"/);
    expect(() => loadConfig({ PIX_PROVIDER: 'bcb', PIX_WEBHOOK_ALLOWED_IPS: '10.0.0.0/8, nope' })).toThrow(/PIX_WEBHOOK_ALLOWED_IPS/);
    // Pix Automático's receiving account (the cobr's recebedor): DadosBancariosRecebedor's limits and enum.
    expect(() => loadConfig({ PIX_PROVIDER: 'bcb', PIX_RECEIVER_ACCOUNT: '1'.repeat(21) })).toThrow(/PIX_RECEIVER_ACCOUNT must/);
    expect(() => loadConfig({ PIX_PROVIDER: 'bcb', PIX_RECEIVER_ACCOUNT_TYPE: 'SALARIO' })).toThrow(/PIX_RECEIVER_ACCOUNT_TYPE must be CORRENTE, POUPANCA or PAGAMENTO/);
    expect(() => loadConfig({ PIX_PROVIDER: 'bcb', PIX_RECEIVER_AGENCY: '12345' })).toThrow(/PIX_RECEIVER_AGENCY must/);
    expect(loadConfig({ PIX_PROVIDER: 'bcb', PIX_RECEIVER_ACCOUNT: '012682-3' }).pix).toMatchObject({ receiverAccount: '012682-3', receiverAccountType: 'CORRENTE', receiverAgency: undefined });
  });
});
