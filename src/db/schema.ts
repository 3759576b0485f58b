/**
 * Table types for Kysely. Conventions shared by both engines:
 * - datetimes are ISO 8601 UTC strings (`2026-01-31T12:00:00.000Z`), which sort as text;
 * - money is integer minor units (`bigint`), exact decimals are scaled integers;
 * - booleans are 0/1 integers (SQLite has no boolean);
 * - structured values are JSON text.
 */
import type { Generated } from 'kysely';

export interface SettingsTable {
  key: string;
  value: string;
}

export interface MerchantsTable {
  account_number: Generated<number>;
  merchant_id: string;
  name: string;
  document_number: string;
  legal_name: string | null;
  email: string | null;
  created_at: string;
}

export interface CredentialsTable {
  user_name: string;
  merchant_id: string;
  password_hash: string;
  /** Space-separated scopes: payments, recurrence, integration. */
  scopes: string;
  /** JSON array of IPs or CIDRs; empty means any address. */
  allowed_ips: string;
  created_at: string;
  revoked_at: string | null;
}

export interface LoginAttemptsTable {
  user_name: string;
  failures: number;
  /** Wall-clock time of the first failure of the current window. */
  window_started_at: string;
  locked_until: string | null;
}

export interface IdempotencyKeysTable {
  /** `merchant:<merchantId>` or `admin`: keys are per merchant. */
  owner: string;
  idem_key: string;
  request_hash: string;
  /** Null while the first request is still being processed. */
  status_code: number | null;
  response_body: string | null;
  content_type: string | null;
  created_at: string;
}

export interface JobsTable {
  id: Generated<number>;
  kind: string;
  payload: string;
  /** Business time at which the job is due. */
  run_at: string;
  status: 'pending' | 'running' | 'done' | 'failed';
  attempts: number;
  max_attempts: number;
  dedupe_key: string | null;
  locked_by: string | null;
  /** Wall-clock lease expiry: a job whose worker died is taken again after it. */
  locked_until: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface DB {
  settings: SettingsTable;
  merchants: MerchantsTable;
  credentials: CredentialsTable;
  login_attempts: LoginAttemptsTable;
  idempotency_keys: IdempotencyKeysTable;
  jobs: JobsTable;
}
