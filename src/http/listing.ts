import { Type, type Static } from '@sinclair/typebox';
import { ApiError } from './errors.js';

/** Query fields shared by every list: `page` >= 1, `limit` 1..100, `orderBy` (contract section 2). */
export const ListQuery = Type.Object({
  // A bound: 1e308 is an integer to JSON Schema, and its offset would overflow every engine.
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000_000, default: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  orderBy: Type.Optional(Type.String({ maxLength: 100, description: '`field`, `field:asc` or `field:desc`; default `createdDate:desc`' })),
});
export type ListQuery = Static<typeof ListQuery>;

export const listEnvelope = <T extends import('@sinclair/typebox').TSchema>(item: T) =>
  Type.Object({ items: Type.Array(item), page: Type.Integer(), limit: Type.Integer(), total: Type.Integer() });

export interface ListEnvelope<T> {
  items: T[];
  page: number;
  limit: number;
  total: number;
}

export interface Paging<C extends string> {
  page: number;
  limit: number;
  offset: number;
  orderColumn: C;
  direction: 'asc' | 'desc';
}

/**
 * Resolves page, limit and orderBy against the resource's sortable fields
 * (API field name -> column). An unknown field or direction is a 400 on `query.orderBy`.
 */
export function paging<C extends string>(query: ListQuery, sortable: Record<string, C>, defaultOrder = 'createdDate:desc'): Paging<C> {
  const page = query.page ?? 1;
  const limit = query.limit ?? 20;
  const [field, direction = 'asc', ...rest] = (query.orderBy ?? defaultOrder).split(':');
  const column = Object.hasOwn(sortable, field) ? sortable[field] : undefined;
  if (!column || rest.length > 0 || (direction !== 'asc' && direction !== 'desc')) {
    throw new ApiError(
      400,
      'query.orderBy',
      `orderBy must be field, field:asc or field:desc with field one of: ${Object.keys(sortable).join(', ')}.`,
    );
  }
  return { page, limit, offset: (page - 1) * limit, orderColumn: column, direction };
}
