import type { TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { ApiError, type ErrorItem } from '../../../http/errors.js';
import { validationErrors, validatorCompiler } from '../../../http/validation.js';
import { pageContext, requireRole, type DashboardDeps } from '../http.js';
import type { PageContext } from '../layout.js';

/**
 * What the operator's form routes share: the operator's page context, and the checks that make
 * a form's fields the same body the /admin API takes (so the API's schema and then its service
 * validate it, with the API's messages). A form field is text; an empty one means "leave as is".
 */

/** The operator's page context; anyone else gets the role's 404 (requireRole). */
export function operatorPage(request: FastifyRequest, deps: DashboardDeps): PageContext {
  requireRole(request, 'operator');
  return pageContext(request, deps.assets, deps.sandbox);
}

/** A compiled check of a body against an /admin route's own schema (the same validator as the API's bodies). */
export function bodyCheck(schema: TSchema): (value: unknown) => void {
  const validate = validatorCompiler({ schema, method: 'POST', url: '', httpPart: 'body' }) as unknown as ((v: unknown) => boolean) & { errors?: any[] };
  return (value) => {
    if (!validate(value)) throw new ApiError(400, validationErrors(validate.errors ?? [], 'body'));
  };
}

/** Collects the field problems of one form so they are all reported at once, before any write. */
export class FieldErrors {
  readonly items: ErrorItem[] = [];

  /** An integer field ('' -> undefined). */
  integer(value: string | undefined, tag: string): number | undefined {
    const text = value?.trim() ?? '';
    if (text === '') return undefined;
    if (!/^-?\d{1,15}$/.test(text)) {
      this.items.push({ tag, description: `${tag} must be a whole number.` });
      return undefined;
    }
    return Number(text);
  }

  /**
   * A decimal field as the API's JSON number ('' -> undefined). A comma is read as the decimal
   * point (pt-BR "2,5"); the service then checks the range and the number of decimals.
   */
  decimal(value: string | undefined, tag: string): number | undefined {
    const text = (value?.trim() ?? '').replace(',', '.');
    if (text === '') return undefined;
    if (!/^-?\d{1,12}(\.\d{1,12})?$/.test(text)) {
      this.items.push({ tag, description: `${tag} must be a number (e.g. 2.5).` });
      return undefined;
    }
    return Number(text);
  }

  /** A yes/no select ('' -> undefined). */
  flag(value: string | undefined, tag: string): boolean | undefined {
    if (value === undefined || value === '') return undefined;
    if (value === 'true' || value === 'false') return value === 'true';
    this.items.push({ tag, description: `${tag} must be true or false.` });
    return undefined;
  }

  /** Throws the 400 with every problem found, if any. */
  check(): void {
    if (this.items.length > 0) throw new ApiError(400, this.items);
  }
}

/** Drops the keys whose value is undefined (and the objects left empty): a partial patch as the API takes it. */
export function compact<T extends Record<string, unknown>>(value: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const inner = compact(v as Record<string, unknown>);
      if (Object.keys(inner).length > 0) out[k] = inner;
    } else out[k] = v;
  }
  return out as Partial<T>;
}
