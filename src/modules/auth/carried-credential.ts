import type { Executor } from '../../db/connection.js';
import { forbidden, unauthorized } from '../../http/errors.js';
import { ipAllowed } from '../../security/ip-allowlist.js';
import type { MerchantService } from '../merchants/service.js';

type Credentials = Pick<MerchantService, 'activeCredential' | 'activeCredentialAhead'>;
type Credential = Awaited<ReturnType<MerchantService['activeCredential']>>;

/**
 * Throws the refusal of a token whose credential is `credential` (undefined: revoked), called
 * from `ip`: 401 for a revoked credential, 403 for an address outside its list.
 */
export function checkCredential(credential: Credential, ip: string): asserts credential is NonNullable<Credential> {
  if (!credential) throw unauthorized('The credential of this token was revoked.');
  if (!ipAllowed(ip, JSON.parse(credential.allowed_ips))) throw forbidden('Requests from this address are not allowed.', 'ip_not_allowed');
}

/**
 * The re-read of a verified token's credential (revocation, IP list), carried by the request's
 * own transaction instead of a round trip before it: `readIn` asks for it when the transaction
 * starts, so on PostgreSQL it goes out with the transaction's first statement, and `confirm`
 * throws the refusal; the caller confirms before anything can commit. A request that fails
 * before confirming is checked alone (`confirmAlone`, the error handler), so a revoked
 * credential is still answered 401 whatever else was wrong with it. docs/performance.md, issue 15.
 */
export class CarriedCredential {
  private ahead?: { read(): Promise<Credential> };
  /** `confirm` or `confirmAlone` passed: the credential was active and the address allowed. */
  confirmed = false;

  constructor(
    private readonly credentials: Credentials,
    private readonly userName: string,
    private readonly ip: string,
  ) {}

  /** Asks for the read in `trx`; settles once the transaction holds it (its next statement carries it). */
  async readIn(trx: Executor): Promise<void> {
    const ahead = this.credentials.activeCredentialAhead(trx, this.userName);
    this.ahead = ahead;
    await ahead.queued;
  }

  /** Throws the refusal (401, 403) from the read asked by `readIn` (read alone if none was). */
  async confirm(): Promise<void> {
    checkCredential(this.ahead ? await this.ahead.read() : await this.credentials.activeCredential(this.userName), this.ip);
    this.confirmed = true;
  }

  /** For a request that failed before confirming: the credential read alone, its refusal thrown. */
  async confirmAlone(): Promise<void> {
    if (this.confirmed) return;
    checkCredential(await this.credentials.activeCredential(this.userName), this.ip);
    this.confirmed = true;
  }
}
