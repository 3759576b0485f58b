import { createHash, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.js';
import { DomainError, unauthenticated } from '../domain/errors.js';

/** Null when the caller may read /metrics, else why not (unauthenticated, or not_found when not served). */
export type MetricsAccess = (authorization: string | undefined) => DomainError | null;

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Who may read /metrics (it tells payment volumes, decline rates and queue sizes):
 * - METRICS_TOKEN set: `Authorization: Bearer <METRICS_TOKEN>`, compared in constant time
 *   (over digests, so not even the length leaks); anything else is 401.
 * - not set, sandbox: open, as before.
 * - not set, production: not served (404 `metrics_disabled`): an open /metrics on the public
 *   listener is what this setting exists to prevent, so production serves it only with a token.
 */
export function metricsAccess(config: Pick<Config, 'mode' | 'metricsToken'>): MetricsAccess {
  if (!config.metricsToken) {
    if (config.mode !== 'production') return () => null;
    const disabled = new DomainError('not_found', 'metrics_disabled', 'Metrics are served in production only with METRICS_TOKEN set.');
    return () => disabled;
  }
  const expected = digest(config.metricsToken);
  const refused = unauthenticated('Authorization must be "Bearer <METRICS_TOKEN>".');
  return (authorization) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    return match && timingSafeEqual(digest(match[1]), expected) ? null : refused;
  };
}
