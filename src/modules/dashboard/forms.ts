import { Type, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import type { ErrorObject } from 'ajv';
import type { FastifyRequest } from 'fastify';
import { invalid, type ErrorItem } from '../../domain/errors.js';
import { validationErrors, validatorCompiler } from '../../http/validation.js';
import { langOf, type Lang } from './i18n.js';

/**
 * A form is checked as the APIs check a body: its TypeBox schema sits on the route
 * (`schema: { body }`, or `querystring` for a filter), the API's validator runs it, and a refusal
 * is the API's `[{tag, description}]` (validationErrors). Two things differ, because every form
 * field is text and a person reads the answer:
 *
 * - A field may tell in its own words what to type (`worded`): the API's "has an invalid format"
 *   does not say it.
 * - A number or yes/no field (`wholeNumber`, `decimal`, `yesNo`) names the field of the API body
 *   it fills; `apiBody` builds that body from the form, for the API route's own schema
 *   (`apiSchemaCheck`) and then its service.
 *
 * A route whose page reports what was mistyped (on its own form, or only after the session and
 * the CSRF token are checked, like its other refusals) sets `attachValidation: true` and reads the
 * refusal with `formProblems` or `requireValidForm`. Any other route leaves it to Fastify: the
 * request is refused before its handler, and the error page lists the same array.
 */

/** What a form field says beyond its schema. */
interface FieldNotes {
  /** The field's name in the API body and in its messages (`velocity.maxPerIp`); else the form field's own name. */
  path?: string;
  /** What a person reads when the field refuses a value. */
  refusal?: (lang: Lang) => string;
  /** The field's text as the API body's value. */
  parse?: (text: string) => number | boolean;
}

// A symbol, so that the notes are no keyword the validator reads and no part of the JSON schema.
const NOTES = Symbol('form field notes');

function noted<T extends TSchema>(schema: T, notes: FieldNotes): T {
  return { ...schema, [NOTES]: notes };
}

function notesOf(schema: TSchema | undefined): FieldNotes | undefined {
  return (schema as { [NOTES]?: FieldNotes } | undefined)?.[NOTES];
}

/**
 * A POST form's schema: its fields and the CSRF token. The token is optional here because it is
 * checked apart, after validation (the session's by the scope's preHandler, the login's by its
 * route): a form without it is forged (403), not malformed (400).
 */
export function formSchema<T extends TProperties>(fields: T) {
  return Type.Object({ _csrf: Type.Optional(Type.String({ maxLength: 200 })), ...fields });
}

/** A field that tells in the page's words what to type when it refuses a value. */
export function worded<T extends TSchema>(schema: T, refusal: (lang: Lang) => string): T {
  return noted(schema, { refusal });
}

/** An integer of the API body at `path`, typed as text; left empty, the body leaves it out (the APIs' partial update). */
export function wholeNumber(path: string) {
  const text = Type.Optional(Type.String({ maxLength: 500, pattern: '^\\s*(-?\\d{1,15})?\\s*$' }));
  return noted(text, { path, refusal: () => `${path} must be a whole number.`, parse: (value) => Number(value) });
}

/**
 * A number of the API body at `path`, typed as text; a comma is the decimal point (pt-BR "2,5").
 * The API's schema and service then check its range and number of decimals.
 */
export function decimal(path: string) {
  const text = Type.Optional(Type.String({ maxLength: 500, pattern: '^\\s*(-?\\d{1,12}([.,]\\d{1,12})?)?\\s*$' }));
  return noted(text, { path, refusal: () => `${path} must be a number (e.g. 2.5).`, parse: (value) => Number(value.trim().replace(',', '.')) });
}

/** A boolean of the API body at `path`, as a yes/no select ('true', 'false', or '' to leave it). */
export function yesNo(path: string) {
  const text = Type.Optional(Type.String({ maxLength: 500, pattern: '^(true|false)?$' }));
  return noted(text, { path, refusal: () => `${path} must be true or false.`, parse: (value) => value === 'true' });
}

/**
 * A refund form's amount, in reais as a person types them ("40", "40,50"); blank is what is left,
 * as the refund APIs' optional amount. `centsOfReais` makes it the API body's cents.
 */
export function reaisField() {
  return worded(Type.Optional(Type.String({ maxLength: 20, pattern: '^\\s*(\\d{1,10}([.,]\\d{1,2})?)?\\s*$' })), (lang) =>
    lang === 'en' ? 'amount must be in reais, e.g. 40 or 40,50 (blank: what is left).' : 'amount deve ser em reais, p. ex. 40 ou 40,50 (em branco: o que resta).',
  );
}

/** "40,5" -> 4050 cents, by the digits (never a float); blank or absent -> undefined. */
export function centsOfReais(typed: string | undefined): number | undefined {
  if (!typed?.trim()) return undefined;
  const [whole, fraction = ''] = typed.trim().replace(',', '.').split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

/**
 * What the API's validator refused in the request's form or query (a route with
 * `attachValidation`), as the API's `[{tag, description}]`, in the form's field order; [] when it
 * accepted everything. What no one types into a form (a path parameter, a value over its length
 * limit) is thrown instead, as the 400 any malformed request gets: the error page, the API's words.
 */
export function formProblems(request: FastifyRequest, form: TObject): ErrorItem[] {
  const failure = request.validationError;
  if (!failure) return [];
  const part = failure.validationContext;
  const errors = failure.validation as ErrorObject[];
  const malformed = part === 'body' || part === 'querystring' ? errors.filter((e) => e.keyword === 'maxLength' || e.keyword === 'maxItems') : errors;
  if (malformed.length > 0) throw invalid(validationErrors(malformed, part));
  const worded = new Map<string, ErrorItem>();
  const others: ErrorObject[] = [];
  for (const error of errors) {
    const name = error.keyword === 'required' ? (error.params as { missingProperty: string }).missingProperty : error.instancePath.split('/')[1];
    const notes = notesOf(form.properties[name]);
    if (notes?.refusal) worded.set(name, { tag: notes.path ?? name, description: notes.refusal(langOf(request)) });
    else others.push(error);
  }
  const inFieldOrder = Object.keys(form.properties).flatMap((name) => worded.get(name) ?? []);
  return [...inFieldOrder, ...(others.length > 0 ? validationErrors(others, part) : [])];
}

/** Throws the 400 of the request's form problems (the error page lists them), if it has any. */
export function requireValidForm(request: FastifyRequest, form: TObject): void {
  const problems = formProblems(request, form);
  if (problems.length > 0) throw invalid(problems);
}

/** The API body a form stands for: each field that names a `path` is placed there, parsed; empty fields are left out. */
export function apiBody(form: TObject, fields: Record<string, string | undefined>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(form.properties)) {
    const notes = notesOf(schema);
    const text = fields[name];
    if (!notes?.path || !notes.parse || text === undefined || text.trim() === '') continue;
    const keys = notes.path.split('.');
    let at = body;
    for (const key of keys.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>;
    at[keys[keys.length - 1]] = notes.parse(text);
  }
  return body;
}

/** A check of a body against an API route's own schema, by the API's validator: its 400 has the API's words. */
export function apiSchemaCheck(schema: TSchema): (body: unknown) => void {
  const validate = validatorCompiler({ schema, method: 'POST', url: '', httpPart: 'body' }) as unknown as ((v: unknown) => boolean) & { errors?: ErrorObject[] };
  return (body) => {
    if (!validate(body)) throw invalid(validationErrors(validate.errors ?? [], 'body'));
  };
}
