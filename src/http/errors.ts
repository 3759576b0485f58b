/**
 * One error type, one envelope: every error the service answers is an array of
 * `{tag, description}` (contract section 2). `tag` is a field path for input errors
 * (`payment.amount`, `query.startDate`) and a short code otherwise.
 */
export interface ErrorItem {
  tag: string;
  description: string;
}

export class ApiError extends Error {
  readonly errors: ErrorItem[];
  /** Extra response headers, e.g. `Retry-After` on 429. */
  headers: Record<string, string> = {};

  constructor(
    readonly statusCode: number,
    tagOrErrors: string | ErrorItem[],
    description?: string,
  ) {
    const errors = typeof tagOrErrors === 'string' ? [{ tag: tagOrErrors, description: description ?? tagOrErrors }] : tagOrErrors;
    super(errors.map((e) => `${e.tag}: ${e.description}`).join('; '));
    this.errors = errors;
  }

  withHeader(name: string, value: string): this {
    this.headers[name] = value;
    return this;
  }
}

export const badRequest = (tag: string, description: string) => new ApiError(400, tag, description);
export const unauthorized = (description = 'Missing, invalid or expired bearer token.') =>
  new ApiError(401, 'unauthorized', description);
export const forbidden = (description: string, tag = 'forbidden') => new ApiError(403, tag, description);
export const notFound = (what = 'Resource') => new ApiError(404, 'not_found', `${what} not found.`);
export const conflict = (description: string, tag = 'invalid_state') => new ApiError(409, tag, description);

