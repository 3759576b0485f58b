import { describe, expect, it } from 'vitest';
import { assertProductionSecrets, ConfigError, loadConfig } from '../src/config.js';

describe('configuration', () => {
  it('has the contract defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      gatewayBasePath: '/gateway',
      integrationBasePath: '/integration',
      databaseUrl: 'sqlite:./data/gateway.db',
      mode: 'sandbox',
      publicUrl: 'http://localhost:8080',
      tokenTtlSeconds: 3600,
      role: 'all',
      trustProxy: false,
    });
  });

  it('parses TRUST_PROXY as a flag, a hop count or a list', () => {
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1']);
  });

  it('refuses bad values with a message naming the setting', () => {
    expect(() => loadConfig({ GATEWAY_MODE: 'live' })).toThrow(/GATEWAY_MODE/);
    expect(() => loadConfig({ ROLE: 'both' })).toThrow(/ROLE/);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ GATEWAY_BASE_PATH: 'gateway' })).toThrow(/GATEWAY_BASE_PATH/);
    expect(() => loadConfig({ TOKEN_TTL_SECONDS: '5' })).toThrow(/TOKEN_TTL_SECONDS/);
  });

  it('refuses to start in production without its secrets, naming each one', () => {
    const bare = loadConfig({ GATEWAY_MODE: 'production' });
    expect(() => assertProductionSecrets(bare)).toThrow(ConfigError);
    try {
      assertProductionSecrets(bare);
    } catch (error) {
      expect((error as Error).message).toContain('ADMIN_API_KEY is required');
      expect((error as Error).message).toContain('DATA_KEY is required');
    }
    const weak = loadConfig({ GATEWAY_MODE: 'production', ADMIN_API_KEY: 'short', DATA_KEY: 'c2hvcnQ=' });
    expect(() => assertProductionSecrets(weak)).toThrow(/at least 32 characters[\s\S]*32 bytes/);
    const good = loadConfig({ GATEWAY_MODE: 'production', ADMIN_API_KEY: 'a'.repeat(40), DATA_KEY: Buffer.alloc(32, 1).toString('base64'), DATABASE_URL: 'postgres://db/gw', ACQUIRER: 'cielo', CIELO_MERCHANT_ID: 'm', CIELO_MERCHANT_KEY: 'k' });
    expect(() => assertProductionSecrets(good)).not.toThrow();
    expect(() => assertProductionSecrets(loadConfig({}))).not.toThrow(); // sandbox invents its own
  });

  const production = { GATEWAY_MODE: 'production', ADMIN_API_KEY: 'a'.repeat(40), DATA_KEY: Buffer.alloc(32, 1).toString('base64'), DATABASE_URL: 'postgres://db/gw' };

  it('production needs ACQUIRER stated (sandbox only explicitly) and an explicit DATABASE_URL', () => {
    expect(() => assertProductionSecrets(loadConfig(production))).toThrow(/ACQUIRER is required in production/);
    expect(() => assertProductionSecrets(loadConfig({ ...production, ACQUIRER: 'sandbox' }))).not.toThrow();
    const { DATABASE_URL: _omit, ...noDatabase } = production;
    expect(() => assertProductionSecrets(loadConfig({ ...noDatabase, ACQUIRER: 'sandbox' }))).toThrow(/DATABASE_URL is required in production/);
    expect(loadConfig({}).acquirer).toMatchObject({ kind: undefined, explicit: false, timeoutMs: 10000 });
  });

  it('ACQUIRER=cielo needs its credentials in either mode; URLs default to Cielo production and may be http', () => {
    expect(() => assertProductionSecrets(loadConfig({ ...production, ACQUIRER: 'cielo' }))).toThrow(/CIELO_MERCHANT_ID is required[\s\S]*CIELO_MERCHANT_KEY is required/);
    expect(() => assertProductionSecrets(loadConfig({ ACQUIRER: 'cielo' }))).toThrow(/CIELO_MERCHANT_ID/);
    const cielo = loadConfig({ ...production, ACQUIRER: 'cielo', CIELO_MERCHANT_ID: 'mid', CIELO_MERCHANT_KEY: 'key' });
    expect(() => assertProductionSecrets(cielo)).not.toThrow();
    expect(cielo.acquirer.cielo).toMatchObject({ apiUrl: 'https://api.cieloecommerce.cielo.com.br', queryUrl: 'https://apiquery.cieloecommerce.cielo.com.br', environment: 'production' });
    const proxied = loadConfig({ ACQUIRER: 'cielo', CIELO_API_URL: 'http://proxy.internal:8080/cielo/', CIELO_QUERY_URL: 'https://apiquerysandbox.cieloecommerce.cielo.com.br' });
    expect(proxied.acquirer.cielo.apiUrl).toBe('http://proxy.internal:8080/cielo');
    expect(loadConfig({ CIELO_API_URL: 'https://apisandbox.cieloecommerce.cielo.com.br' }).acquirer.cielo.environment).toBe('sandbox');
    expect(() => loadConfig({ ACQUIRER: 'rede' })).toThrow(/ACQUIRER must be/);
    expect(() => loadConfig({ CIELO_API_URL: 'ftp://x' })).toThrow(/CIELO_API_URL/);
    expect(() => loadConfig({ CIELO_API_URL: 'https://user:pw@x' })).toThrow(/CIELO_API_URL must not carry credentials/);
    expect(() => loadConfig({ ACQUIRER_TIMEOUT_MS: '10' })).toThrow(/ACQUIRER_TIMEOUT_MS/);
    expect(() => loadConfig({ CIELO_ENVIRONMENT: 'staging' })).toThrow(/CIELO_ENVIRONMENT/);
  });
});
