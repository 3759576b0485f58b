import { Ajv, type ErrorObject } from 'ajv';
import ajvFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { ErrorItem } from './errors.js';

/**
 * Two validators: bodies are checked strictly (a JSON string is not a number), while query,
 * path and header values arrive as text and are coerced to the schema's types.
 * `allErrors` lets one 400 list every problem of the request at once.
 */
function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: true,
    strict: false,
  });
  // ajv-formats is CommonJS: under NodeNext its callable is the `default` property.
  (ajvFormats as unknown as { default: (a: Ajv) => void }).default(ajv);
  return ajv;
}

const strictAjv = makeAjv(false);
const coercingAjv = makeAjv(true);

export const validatorCompiler: FastifySchemaCompiler<any> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? strictAjv : coercingAjv).compile(schema as object) as any;

const PART_PREFIX: Record<string, string> = {
  body: '',
  querystring: 'query.',
  params: 'path.',
  headers: 'header.',
};

/** `/configSplit/0/percent` -> `configSplit[0].percent`. */
function pointerToPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, seg) => (/^\d+$/.test(seg) ? `${path}[${seg}]` : path ? `${path}.${seg}` : seg), '');
}

function describe(error: ErrorObject, field: string): string {
  const p = error.params as Record<string, any>;
  switch (error.keyword) {
    case 'required':
      return `${field} is required.`;
    case 'type':
      // Card amounts are integer cents; 150.5 is the commonest mistake, so say what to send.
      if (p.type === 'integer' && /(^|\.)amount$/i.test(field)) return `${field} must be an integer number of cents (R$ 150.50 is 15050).`;
      return `${field} must be of type ${p.type}.`;
    case 'maxLength':
      return `${field} must have at most ${p.limit} characters.`;
    case 'minLength':
      return p.limit === 1 ? `${field} must not be empty.` : `${field} must have at least ${p.limit} characters.`;
    case 'maximum':
    case 'minimum':
    case 'exclusiveMaximum':
    case 'exclusiveMinimum':
      return `${field} must be ${p.comparison} ${p.limit}.`;
    case 'enum':
      return `${field} must be one of: ${(p.allowedValues as unknown[]).join(', ')}.`;
    case 'const':
      return `${field} must be ${JSON.stringify(p.allowedValue)}.`;
    case 'pattern':
    case 'format':
      return `${field} has an invalid format.`;
    case 'not':
      // `additionalProperties: {not: {}}` (a closed object, e.g. the bank slip issue body): the field is unknown.
      if (error.schemaPath.endsWith('/additionalProperties/not')) return `${field} is not a field of this request; remove it (unknown fields are refused, never dropped).`;
      return `${field} is invalid.`;
    case 'maxItems':
      return `${field} must have at most ${p.limit} items.`;
    case 'minItems':
      return `${field} must have at least ${p.limit} items.`;
    default:
      return `${field} ${error.message ?? 'is invalid'}.`;
  }
}

/** Maps Ajv errors to the error array, one entry per field. */
export function validationErrors(errors: ErrorObject[], context: string): ErrorItem[] {
  const prefix = PART_PREFIX[context] ?? '';
  const byTag = new Map<string, ErrorItem>();
  for (const error of errors) {
    // Union branches (anyOf/oneOf) repeat their children's errors; the child errors are clearer.
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'if') continue;
    let path = pointerToPath(error.instancePath);
    if (error.keyword === 'required') {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      path = path ? `${path}.${missing}` : missing;
    }
    const tag = `${prefix}${path}` || context.replace('querystring', 'query');
    if (!byTag.has(tag)) byTag.set(tag, { tag, description: describe(error, tag) });
  }
  if (byTag.size === 0) byTag.set(context, { tag: context, description: `The ${context} is invalid.` });
  return [...byTag.values()];
}
