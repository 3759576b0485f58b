import { DomainError, type ErrorItem, type Failure } from '../domain/errors.js';

/**
 * One error type, one envelope: every error the service answers is an array of
 * `{tag, description}` (contract section 2). Services throw the domain's errors
 * (src/domain/errors.ts); this is where each kind gets its HTTP status.
 */
export type { ErrorItem };

export const STATUS_OF: Record<Failure, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  refused: 422,
  too_many: 429,
  upstream_failed: 502,
  unavailable: 503,
};

const KIND_OF = new Map(Object.entries(STATUS_OF).map(([kind, status]) => [status, kind as Failure]));

/** An answer only HTTP has a word for (405, 415, an idempotency replay still running), thrown by the HTTP layer. */
export class ApiError extends DomainError {
  /** Extra response headers, e.g. `Retry-After` on 429. */
  headers: Record<string, string> = {};

  constructor(
    readonly statusCode: number,
    tagOrErrors: string | ErrorItem[],
    description?: string,
  ) {
    super(KIND_OF.get(statusCode) ?? (statusCode >= 500 ? 'upstream_failed' : 'invalid'), tagOrErrors, description);
  }

  withHeader(name: string, value: string): this {
    this.headers[name] = value;
    return this;
  }
}

/** The status and headers a domain error is answered with. */
export function httpOf(error: DomainError): { status: number; headers: Record<string, string> } {
  const status = error instanceof ApiError ? error.statusCode : STATUS_OF[error.kind];
  const headers = error instanceof ApiError ? { ...error.headers } : {};
  if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(error.retryAfterSeconds);
  return { status, headers };
}

export const badRequest = (tag: string, description: string) => new ApiError(400, tag, description);
export const unauthorized = (description = 'Missing, invalid or expired bearer token.') =>
  new ApiError(401, 'unauthorized', description);
export const forbidden = (description: string, tag = 'forbidden') => new ApiError(403, tag, description);
export const notFound = (what = 'Resource') => new ApiError(404, 'not_found', `${what} not found.`);
export const conflict = (description: string, tag = 'invalid_state') => new ApiError(409, tag, description);
