import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../db/unavailable.js';
import { DomainError } from '../domain/errors.js';
import { httpOf, type ErrorItem } from './errors.js';
import { validationErrors } from './validation.js';

/** Tags for the framework's own client errors, keyed by status. */
const FRAMEWORK_TAGS: Record<number, string> = {
  400: 'bad_request',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

export function frameworkError(error: FastifyError): { status: number; errors: ErrorItem[] } {
  const status = error.statusCode ?? 500;
  if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || (status === 400 && error instanceof SyntaxError)) {
    return { status: 400, errors: [{ tag: 'body', description: 'The request body is not valid JSON.' }] };
  }
  if (error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
    return { status: 400, errors: [{ tag: 'body', description: 'The request body is empty but Content-Type is application/json.' }] };
  }
  if (status === 413) {
    return { status, errors: [{ tag: 'payload_too_large', description: 'The request body exceeds the 1 MiB limit.' }] };
  }
  if (status === 415) {
    return { status, errors: [{ tag: 'unsupported_media_type', description: 'Content-Type must be application/json.' }] };
  }
  return { status, errors: [{ tag: FRAMEWORK_TAGS[status] ?? 'bad_request', description: error.message }] };
}

/** An error as the APIs answer it: its status, the `[{tag, description}]` array, extra headers. */
export interface ErrorAnswer {
  status: number;
  errors: ErrorItem[];
  headers: Record<string, string>;
}

/**
 * The mapping of every error to its answer, logging what an operator must see. The APIs send
 * it as JSON (installErrorHandling); the dashboard renders the same answer as a page.
 */
export function errorAnswer(error: FastifyError, request: FastifyRequest): ErrorAnswer {
  if (error instanceof DomainError) {
    const { status, headers } = httpOf(error);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    return { status, errors: error.errors, headers };
  }
  if (error.validation) {
    return { status: 400, errors: validationErrors(error.validation as any, error.validationContext ?? 'body'), headers: {} };
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return { ...frameworkError(error), headers: {} };
  // The database restarting or unreachable is not a bug: the caller should come back shortly.
  // A payment already sent to the acquirer stays Pending and is settled by the recovery pass.
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ error: error.message }, 'database unavailable');
    return {
      status: 503,
      errors: [{ tag: 'database_unavailable', description: 'The database is not reachable right now. Retry after the Retry-After delay (a payment with the same Idempotency-Key).' }],
      headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
    };
  }
  // Never leak internals: the detail goes to the log (redacted), the caller gets a generic body.
  request.log.error({ err: error }, 'unhandled error');
  return { status: 500, errors: [{ tag: 'internal', description: 'Internal server error.' }], headers: {} };
}

/** The single handler that writes every error as the `[{tag, description}]` array. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const answer = errorAnswer(error, request);
    return reply.code(answer.status).headers(answer.headers).send(answer.errors);
  });

  // Every route's path as a pattern, so that a known path asked with another method is 405
  // (with Allow), not 404: `PUT /v1/payments` exists as a path, just not as that method.
  const routes: { method: string; pattern: RegExp }[] = [];
  app.addHook('onRoute', (route) => {
    const pattern = new RegExp(`^${route.url.replace(/\/+$/, '').replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+').replace(/\*/g, '.*')}/?$`);
    // OPTIONS is the CORS preflight, answered on every path (src/root/app.ts): not a method of the resource.
    for (const method of [route.method].flat()) if (method !== 'HEAD' && method !== 'OPTIONS') routes.push({ method, pattern });
  });

  app.setNotFoundHandler((request, reply) => {
    const allowed = [...new Set(routes.filter((r) => r.pattern.test(request.url.split('?')[0])).map((r) => r.method))];
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      return reply
        .code(405)
        .header('allow', allowed.join(', '))
        .send([{ tag: 'method_not_allowed', description: `${request.method} is not allowed here; use ${allowed.join(' or ')}.` }]);
    }
    // Long digit runs are masked: a card number typed into a URL must not be echoed back.
    const path = request.url.split('?')[0].slice(0, 200).replace(/\d{12,19}/g, '****');
    reply.code(404).send([{ tag: 'not_found', description: `No route for ${request.method} ${path}.` }]);
  });
}
