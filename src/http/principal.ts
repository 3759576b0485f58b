/**
 * Who a request is, as the guards see it. The auth module authenticates (its AuthService
 * satisfies `Authenticator`); this floor only names the shape, so it imports no module.
 */

/** The scopes a credential may be granted; each gateway route asks for one. */
export const SCOPES = ['payments', 'recurrence', 'integration'] as const;
export type Scope = (typeof SCOPES)[number];

/** The caller of a gateway or integration request, set by the guards. */
export interface Principal {
  userName: string;
  merchantId: string;
  accountNumber: number;
  scopes: Scope[];
}

/** What the guards ask of authentication. */
export interface Authenticator {
  /** The principal of a bearer token for `api`; throws 401 (or 403 for a missing scope). */
  authenticate(api: 'gateway' | 'integration', authorization: string | undefined, ip: string, scope?: Scope): Promise<Principal>;
  /** Whether `key` is the operator's ADMIN_API_KEY (constant time). */
  isAdminKey(key: string): boolean;
}
