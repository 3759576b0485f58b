/**
 * What went wrong, in the domain's words. Services throw these; the HTTP layer answers each
 * kind with its status (src/http/errors.ts) and the error array unchanged: `tag` is a field path
 * for input errors (`payment.amount`, `query.startDate`) and a short code otherwise.
 */
export interface ErrorItem {
  tag: string;
  description: string;
}

/**
 * - invalid: the input breaks a rule (400)
 * - unauthenticated / forbidden: no valid credential, or one without the right (401 / 403)
 * - not_found: no such resource for this merchant (404)
 * - conflict: the resource's state does not allow it (409)
 * - refused: well formed but refused by a party (an issuer's zero auth, a closed link) (422)
 * - too_many: a rate limit (429)
 * - upstream_failed: a party the gateway called failed or answered nonsense (502)
 * - unavailable: try again later (503)
 */
export type Failure = 'invalid' | 'unauthenticated' | 'forbidden' | 'not_found' | 'conflict' | 'refused' | 'too_many' | 'upstream_failed' | 'unavailable';

export class DomainError extends Error {
  readonly errors: ErrorItem[];
  /** Seconds a caller should wait before trying again (429, 503, an operation still running). */
  retryAfterSeconds?: number;

  constructor(
    readonly kind: Failure,
    tagOrErrors: string | ErrorItem[],
    description?: string,
  ) {
    const errors = typeof tagOrErrors === 'string' ? [{ tag: tagOrErrors, description: description ?? tagOrErrors }] : tagOrErrors;
    super(errors.map((e) => `${e.tag}: ${e.description}`).join('; '));
    this.errors = errors;
  }

  retryAfter(seconds: number): this {
    this.retryAfterSeconds = seconds;
    return this;
  }
}

export const invalid = (tagOrErrors: string | ErrorItem[], description?: string) => new DomainError('invalid', tagOrErrors, description);
export const unauthenticated = (description = 'Missing, invalid or expired bearer token.') => new DomainError('unauthenticated', 'unauthorized', description);
export const forbidden = (description: string, tag = 'forbidden') => new DomainError('forbidden', tag, description);
export const notFound = (what = 'Resource') => new DomainError('not_found', 'not_found', `${what} not found.`);
export const conflict = (description: string, tag = 'invalid_state') => new DomainError('conflict', tag, description);
export const refused = (tagOrErrors: string | ErrorItem[], description?: string) => new DomainError('refused', tagOrErrors, description);
export const upstreamFailed = (tag: string, description: string) => new DomainError('upstream_failed', tag, description);
export const unavailable = (tag: string, description: string) => new DomainError('unavailable', tag, description);

/** The caller's input or the resource's state was refused (a 4xx): not a failure of a party or of the gateway. */
export const isCallerError = (error: unknown): error is DomainError =>
  error instanceof DomainError && error.kind !== 'upstream_failed' && error.kind !== 'unavailable';
