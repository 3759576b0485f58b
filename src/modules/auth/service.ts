import type { Clock } from '../../clock.js';
import type { Database } from '../../db/connection.js';
import { DomainError, type Failure, forbidden, unauthenticated } from '../../domain/errors.js';
import { ipAllowed } from '../../security/ip-allowlist.js';
import { hashPassword, randomSecret, verifyPassword } from '../../security/passwords.js';
import type { MerchantService, Scope } from '../merchants/service.js';
import type { AdminKey } from './admin-key.js';
import { clearFailures, LOCK_MS, lockedForSeconds, MAX_FAILURES, recordFailure } from './lockout.js';
import type { ApiName, TokenClaims, TokenSigner } from './tokens.js';

export interface TokenResponse {
  authenticated: boolean;
  created: string | null;
  expiration: string | null;
  accessToken: string | null;
  message: string;
}

/** Why a login was refused, in the domain's words: the routes answer each with its status. */
export type LoginRefusal = Extract<Failure, 'unauthenticated' | 'forbidden' | 'too_many'>;

export type LoginResult = { refusal?: LoginRefusal; body: TokenResponse; retryAfter?: number };

export type Principal = TokenClaims;

type Credential = NonNullable<Awaited<ReturnType<MerchantService['activeCredential']>>>;
/** A login's outcome: the refusal to answer, or the credential and its scopes. */
export type PasswordCheck = { refused: LoginResult } | { credential: Credential; scopes: Scope[] };

const refused = (refusal: LoginRefusal, message: string, retryAfter?: number): LoginResult => ({
  refusal,
  body: { authenticated: false, created: null, expiration: null, accessToken: null, message },
  retryAfter,
});

/** What the auth service needs, and nothing more. */
export interface AuthDeps {
  database: Database;
  clock: Clock;
  signer: TokenSigner;
  /** Credentials belong to the merchants module: read through its service. */
  merchants: Pick<MerchantService, 'activeCredential'>;
  passwordHashCost: number;
  adminKey: AdminKey;
  /** Where a lockout is reported (pino fits). */
  logger?: { warn(obj: object, msg?: string): void };
}

export class AuthService {
  /** Hash checked for unknown userNames, so they cost the same time as known ones. */
  private dummyHash: Promise<string>;
  /** The password check; a field so tests can observe that unknown users pay for one too. */
  private readonly verify = verifyPassword;

  private readonly database: Database;
  private readonly clock: Clock;
  private readonly signer: TokenSigner;
  private readonly merchants: AuthDeps['merchants'];
  private readonly adminKey: AdminKey;
  private readonly logger?: AuthDeps['logger'];

  constructor(deps: AuthDeps) {
    ({ database: this.database, clock: this.clock, signer: this.signer, merchants: this.merchants, adminKey: this.adminKey, logger: this.logger } = deps);
    this.dummyHash = hashPassword(randomSecret(), deps.passwordHashCost);
  }

  /** `/admin` and `/sandbox`: whether a bearer key is ADMIN_API_KEY. */
  isAdminKey(key: string): boolean {
    return this.adminKey.matches(key);
  }

  /** Both token endpoints (contract section 4); the refusal is in the token response shape. */
  async login(api: ApiName, userName: string, password: string, ip: string): Promise<LoginResult> {
    const checked = await this.checkPassword(api, userName, password, ip);
    if ('refused' in checked) return checked.refused;
    const { credential, scopes } = checked;
    const token = await this.signer.issue(
      api,
      { userName, merchantId: credential.merchant_id, accountNumber: Number(credential.account_number), scopes },
      this.clock.wallNow(),
    );
    return {
      body: {
        authenticated: true,
        created: token.created.toISOString(),
        expiration: token.expiration.toISOString(),
        accessToken: token.accessToken,
        message: 'OK',
      },
    };
  }

  /**
   * The password check behind every login (the two token endpoints and the dashboard's): the
   * same lockout, the same constant-time answer for unknown userNames, the credential's IP
   * list, and the integration scope for the integration API.
   */
  async checkPassword(api: ApiName | 'dashboard', userName: string, password: string, ip: string): Promise<PasswordCheck> {
    const db = this.database.db;
    const locked = await lockedForSeconds(db, userName, this.clock.wallNow());
    if (locked > 0) return { refused: refused('too_many', 'Too many failed logins; try again later.', locked) };

    const credential = await this.merchants.activeCredential(userName);
    // Always run one scrypt, known user or not: the response time tells nothing.
    const valid = await this.verify(password, credential?.password_hash ?? (await this.dummyHash));
    if (!credential || !valid) {
      if (await recordFailure(db, userName, this.clock.wallNow())) {
        // The userName of a credential (an id like the merchant's, not a secret) is named; an
        // unknown one is not: it is whatever the caller typed, perhaps a password in the wrong field.
        const who = credential ? { userName, merchantId: credential.merchant_id } : { knownUser: false };
        this.logger?.warn({ event: 'login.locked', api, ...who, ip, failures: MAX_FAILURES, lockedForSeconds: LOCK_MS / 1000 }, 'login locked');
      }
      return { refused: refused('unauthenticated', 'Invalid userName or password.') };
    }
    await clearFailures(db, userName);

    if (!ipAllowed(ip, JSON.parse(credential.allowed_ips))) return { refused: refused('forbidden', 'Requests from this address are not allowed.') };
    const scopes = credential.scopes.split(' ') as Scope[];
    if (api === 'integration' && !scopes.includes('integration')) {
      return { refused: refused('forbidden', 'This credential has no access to the integration API.') };
    }
    return { credential, scopes };
  }

  /**
   * The dashboard's operator login: ADMIN_API_KEY compared in constant time, with the login
   * lockout kept per address (an attacker cannot lock the operator out from elsewhere).
   */
  async checkAdminKey(key: string, ip: string): Promise<{ ok: true } | { refusal: Extract<LoginRefusal, 'unauthenticated' | 'too_many'>; retryAfter?: number }> {
    const db = this.database.db;
    const lockKey = `operator@${ip}`;
    const locked = await lockedForSeconds(db, lockKey, this.clock.wallNow());
    if (locked > 0) return { refusal: 'too_many', retryAfter: locked };
    if (!this.adminKey.matches(key)) {
      if (await recordFailure(db, lockKey, this.clock.wallNow())) {
        this.logger?.warn({ event: 'login.locked', api: 'dashboard-operator', ip, failures: MAX_FAILURES, lockedForSeconds: LOCK_MS / 1000 }, 'login locked');
      }
      return { refusal: 'unauthenticated' };
    }
    await clearFailures(db, lockKey);
    return { ok: true };
  }

  /**
   * Validates a bearer token for `api` and re-reads its credential, so a revocation or a
   * narrowed IP list takes effect on the very next call.
   */
  async authenticate(api: ApiName, authorization: string | undefined, ip: string, scope?: Scope): Promise<Principal> {
    return this.checked(await this.verifiedClaims(api, authorization), ip, scope);
  }

  /**
   * The principal of a merchant's dashboard session, its credential re-read on every request as
   * a bearer token's is (authenticate): undefined once the credential is revoked, is another
   * merchant's, or no longer allows `ip`. The principal is the one its token would carry.
   */
  async sessionPrincipal(userName: string, merchantId: string, ip: string): Promise<Principal | undefined> {
    const credential = await this.merchants.activeCredential(userName);
    if (!credential || credential.merchant_id !== merchantId || !ipAllowed(ip, JSON.parse(credential.allowed_ips))) return undefined;
    const scopes = credential.scopes.split(' ') as Scope[];
    return { userName: credential.user_name, merchantId: credential.merchant_id, accountNumber: Number(credential.account_number), scopes };
  }

  /** The claims of a valid bearer token for `api`; throws 401 for anything else. */
  private async verifiedClaims(api: ApiName, authorization: string | undefined): Promise<TokenClaims> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) throw unauthenticated('Authorization header must be "Bearer <accessToken>".');
    const claims = await this.signer.verify(api, match[1], this.clock.wallNow());
    if ('refused' in claims) throw unauthenticated(claims.refused);
    return claims;
  }

  /** The credential behind `claims` (revoked: 401, address: 403), then the scope (403). */
  private async checked(claims: TokenClaims, ip: string, scope?: Scope): Promise<Principal> {
    const credential = await this.merchants.activeCredential(claims.userName);
    if (!credential) throw unauthenticated('The credential of this token was revoked.');
    if (!ipAllowed(ip, JSON.parse(credential.allowed_ips))) throw forbidden('Requests from this address are not allowed.', 'ip_not_allowed');
    if (scope && !claims.scopes.includes(scope)) {
      throw new DomainError('forbidden', 'insufficient_scope', `This token lacks the "${scope}" scope.`);
    }
    return claims;
  }
}
