import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * Card data and secrets never reach a log. Request logging is our own one line per request
 * (see http/request-log.ts) and never includes bodies; these paths cover anything that logs an
 * object carrying such fields anyway (errors with a request attached, service logs).
 */
const SENSITIVE_FIELDS = [
  'authorization',
  'password',
  'accessToken',
  'cardNumber',
  'number',
  'securityCode',
  'encryptedCard',
  'numberToken',
  'pan',
  'cvv',
  'basicAuth',
  'secret',
  'adminApiKey',
  'dataKey',
  'dataKeysPrevious',
  'metricsToken',
];

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  ...SENSITIVE_FIELDS.flatMap((f) => [f, `*.${f}`, `*.*.${f}`]),
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, destination);
}
