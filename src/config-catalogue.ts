/**
 * Every setting the gateway reads from the environment, with its default and what it means,
 * for `gateway env` and docs/configuration. test/config-catalogue.test.ts fails when a setting
 * read by a config file (src/config.ts and the files it calls) is missing here.
 */
export interface SettingDoc {
  name: string;
  /** As the operator would write it; '(none)' when unset means off or generated. */
  default: string;
  meaning: string;
  /** Its value is never printed. */
  secret?: boolean;
}

export const SETTINGS: readonly SettingDoc[] = [
  { name: 'GATEWAY_MODE', default: 'sandbox', meaning: '"sandbox" (virtual clock, sandbox acquirer, generated secrets, /sandbox controls) or "production" (requires its secrets)' },
  { name: 'PORT', default: '8080', meaning: 'TCP port of the single listener that serves every API' },
  { name: 'HOST', default: '0.0.0.0', meaning: 'Address the listener binds to' },
  { name: 'PUBLIC_URL', default: 'http://localhost:<PORT>', meaning: 'Public base URL: payment-link checkout URLs, Pix locations, bank slip links' },
  { name: 'GATEWAY_BASE_PATH', default: '/gateway', meaning: 'Path prefix of the gateway API (tokens, cards, payments, links, recurrence)' },
  { name: 'INTEGRATION_BASE_PATH', default: '/integration', meaning: 'Path prefix of the integration API (conciliation, bank slips, webhooks)' },
  { name: 'DATABASE_URL', default: 'sqlite:./data/gateway.db', meaning: 'sqlite:PATH (embedded, sandbox) or postgres://... (required in production)', secret: true },
  { name: 'ADMIN_API_KEY', default: '(generated in sandbox)', meaning: 'Operator key for /admin and /sandbox (Bearer); at least 32 characters, required in production', secret: true },
  { name: 'DATA_KEY', default: '(generated in sandbox)', meaning: 'Key that seals card data and secrets at rest: 32 bytes in base64 (openssl rand -base64 32), required in production', secret: true },
  { name: 'DATA_KEYS_PREVIOUS', default: '(none)', meaning: 'Comma-separated older DATA_KEYs that still open values sealed before a rotation (never seal)', secret: true },
  { name: 'TOKEN_TTL_SECONDS', default: '3600', meaning: 'Lifetime of the access tokens issued to merchants' },
  { name: 'ROLE', default: 'all', meaning: '"api" (HTTP only), "worker" (jobs, health and metrics only) or "all"' },
  { name: 'TRUST_PROXY', default: 'false', meaning: 'Trust X-Forwarded-*: false, true, a hop count or a list of addresses/CIDRs of the proxies' },
  { name: 'LOG_LEVEL', default: 'info', meaning: 'pino log level (trace, debug, info, warn, error, fatal)' },
  { name: 'PASSWORD_HASH_COST', default: '15', meaning: 'log2 of the scrypt cost for credential passwords (10 to 20)' },
  { name: 'WORKER_POLL_MS', default: '250', meaning: 'How often an idle worker polls the job table, in ms' },
  { name: 'WORKER_CONCURRENCY', default: '32', meaning: 'Jobs one worker runs at the same time' },
  { name: 'JOB_LEASE_MS', default: '30000', meaning: "A claimed job's lease, renewed while it runs: a dead worker's jobs are taken again after it" },
  { name: 'INSTANCE_ID', default: '<hostname>:<PORT>', meaning: 'Names this instance across restarts, so a restart takes back the jobs its previous process held' },
  { name: 'WEBHOOK_TIMEOUT_MS', default: '30000', meaning: 'A webhook or callback receiver must answer within this' },
  { name: 'CORS_ORIGINS', default: '(none: no CORS headers)', meaning: 'Comma-separated origins allowed to call the APIs from a browser ("*" for any), e.g. the host serving /docs elsewhere' },
  { name: 'DOCS_PUBLIC', default: 'true in sandbox, false in production', meaning: 'Serve /docs and /openapi.json' },
  { name: 'METRICS_TOKEN', default: '(none)', meaning: 'Bearer token /metrics requires; production without it does not serve /metrics', secret: true },
  { name: 'BANK_SLIP_BANK_CODE', default: '001', meaning: 'FEBRABAN bank code (3 digits) that starts every bank slip barcode' },
  { name: 'BANK_SLIP_PROVIDER', default: 'sandbox', meaning: '"sandbox" registers slips at once; "cnab" waits for the bank\'s return file and needs the BANK_SLIP_* account settings' },
  { name: 'BANK_SLIP_BANK_NAME', default: 'BANCO SANDBOX', meaning: 'Bank name printed on the slip' },
  { name: 'BANK_SLIP_BENEFICIARY_NAME', default: '(sandbox placeholder)', meaning: 'Beneficiary (the operator holding the collection agreement); required with BANK_SLIP_PROVIDER=cnab' },
  { name: 'BANK_SLIP_BENEFICIARY_DOCUMENT', default: '(sandbox placeholder)', meaning: "Beneficiary's CNPJ; required with cnab" },
  { name: 'BANK_SLIP_BENEFICIARY_ADDRESS', default: '(sandbox placeholder)', meaning: "Beneficiary's address printed on the slip; required with cnab" },
  { name: 'BANK_SLIP_AGENCY', default: '0001-9', meaning: 'Agency, with an optional check digit after a dash; required with cnab' },
  { name: 'BANK_SLIP_ACCOUNT', default: '123456-7', meaning: 'Account, with an optional check digit after a dash; required with cnab' },
  { name: 'BANK_SLIP_AGREEMENT', default: '1234567', meaning: 'Collection agreement (convênio) number; required with cnab' },
  { name: 'BANK_SLIP_WALLET', default: '1', meaning: 'Wallet (carteira) as the bank names it' },
  { name: 'ACQUIRER', default: 'sandbox (required in production)', meaning: 'Default card acquirer: "sandbox" or "cielo" (a merchant may have its own Cielo connection)' },
  { name: 'ACQUIRER_TIMEOUT_MS', default: '10000', meaning: 'Wait for the acquirer before the answer is treated as unknown (and looked up, never declined)' },
  { name: 'CIELO_API_URL', default: "Cielo's production API", meaning: "Cielo's transactional API base URL (its sandbox host for tests)" },
  { name: 'CIELO_QUERY_URL', default: "Cielo's production query API", meaning: "Cielo's query API base URL" },
  { name: 'CIELO_MERCHANT_ID', default: '(none)', meaning: 'MerchantId of the Cielo account; required with ACQUIRER=cielo' },
  { name: 'CIELO_MERCHANT_KEY', default: '(none)', meaning: 'MerchantKey of the Cielo account; required with ACQUIRER=cielo', secret: true },
  { name: 'CIELO_ENVIRONMENT', default: 'from the API URL', meaning: '"production" or "sandbox" (Cielo\'s sandbox answers codes of its own)' },
  { name: 'PIX_PROVIDER', default: 'sandbox', meaning: '"sandbox" (the gateway plays the PSP) or "bcb" (a PSP implementing the Central Bank\'s API Pix)' },
  { name: 'PIX_API_URL', default: '(none)', meaning: "The PSP's API Pix base URL; required with bcb" },
  { name: 'PIX_TOKEN_URL', default: '<origin of PIX_API_URL>/oauth/token', meaning: "The PSP's OAuth2 token endpoint" },
  { name: 'PIX_CLIENT_ID', default: '(none)', meaning: 'OAuth2 client id at the PSP' },
  { name: 'PIX_CLIENT_SECRET', default: '(none)', meaning: 'OAuth2 client secret at the PSP', secret: true },
  { name: 'PIX_CERT_FILE', default: '(none)', meaning: 'Mutual-TLS client certificate (PEM file)' },
  { name: 'PIX_KEY_FILE', default: '(none)', meaning: "The client certificate's private key (PEM file)" },
  { name: 'PIX_CA_FILE', default: '(none)', meaning: "The PSP's CA (PEM file)" },
  { name: 'PIX_KEY', default: '(none)', meaning: 'The receiving Pix key (chave) of the account at the PSP' },
  { name: 'PIX_WEBHOOK_PATH', default: '(none)', meaning: 'Where the PSP POSTs payments (<path>/pix is served too)' },
  { name: 'PIX_WEBHOOK_SECRET', default: '(none)', meaning: 'Shared secret the PSP sends with its webhook calls', secret: true },
  { name: 'PIX_WEBHOOK_ALLOWED_IPS', default: '(any)', meaning: 'Addresses/CIDRs the PSP calls from' },
  { name: 'PIX_RECONCILE_INTERVAL_SECONDS', default: '300', meaning: 'How often the PSP\'s received Pix list is read to catch missed webhooks' },
  { name: 'PIX_RECONCILE_WINDOW_SECONDS', default: '86400', meaning: 'How far back that reading goes' },
  { name: 'PIX_TIMEOUT_MS', default: '10000', meaning: 'Wait for the PSP before giving up on a call' },
  { name: 'DB_CONNECT_TIMEOUT_MS', default: '5000', meaning: 'A new database connection must be made within this' },
  { name: 'DB_STATEMENT_TIMEOUT_MS', default: '30000', meaning: 'PostgreSQL cancels a statement running longer' },
  { name: 'DB_IDLE_IN_TRANSACTION_TIMEOUT_MS', default: '60000', meaning: 'PostgreSQL ends a session idle inside a transaction this long' },
  { name: 'DB_START_TIMEOUT_MS', default: '60000', meaning: 'At start, how long to keep retrying a database that does not answer yet' },
  { name: 'CONCIL_MAX_RANGE_DAYS', default: '90', meaning: 'Longest date range of one conciliation search' },
  { name: 'CONCIL_MAX_CONCURRENT_PER_MERCHANT', default: '2', meaning: 'Conciliation range searches one merchant may run at once' },
  { name: 'CONCIL_PAGE_ROWS', default: '2000', meaning: 'Rows per keyset read of a streamed conciliation search' },
];
