import { createHmac } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database, Executor } from '../db/connection.js';
import type { Clock } from '../clock.js';
import { ApiError } from './errors.js';

/**
 * Idempotency-Key (contract section 2), switched on per route with `config: { idempotent: true }`.
 * The first request inserts the key as a slot (the primary key makes two racing requests
 * collide, on one instance or ten); its response, whatever the status, fills the slot and is
 * replayed for 24 h to the same key and body. Keys belong to the caller (merchant or admin).
 */
export const RETENTION_MS = 24 * 60 * 60 * 1000;
const HEADER = 'idempotency-key';
/** A slot still empty after this long belongs to a request that died. */
const ABANDONED_MS = 5 * 60 * 1000;

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Keyed (HMAC), not a plain hash: a body may hold a card number, and card numbers are few
 * enough that a plain SHA-256 of one could be reversed by trying them all.
 */
function requestHash(request: FastifyRequest, key: Buffer): string {
  return createHmac('sha256', key)
    .update(`${request.method} ${request.url}\n${canonical(request.body ?? null)}`)
    .digest('hex');
}

export function installIdempotency(app: FastifyInstance, database: Database, clock: Clock, hashKey: Buffer): void {
  const db = database.db;

  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.routeOptions.config.idempotent) return;
    const raw = request.headers[HEADER];
    if (raw === undefined) return;
    const key = Array.isArray(raw) ? raw[0] : raw;
    if (!key || key.length > 255) {
      throw new ApiError(400, 'header.Idempotency-Key', 'Idempotency-Key must have 1 to 255 characters.');
    }
    const owner = request.principal ? `merchant:${request.principal.merchantId}` : request.isAdmin ? 'admin' : 'anonymous';
    const hash = requestHash(request, hashKey);
    const now = clock.wallNow();

    // A slot older than the retention is gone: delete it so the key may be used afresh.
    await db
      .deleteFrom('idempotency_keys')
      .where('owner', '=', owner)
      .where('idem_key', '=', key)
      .where('created_at', '<', new Date(now.getTime() - RETENTION_MS).toISOString())
      .execute();
    const inserted = await db
      .insertInto('idempotency_keys')
      .values({ owner, idem_key: key, request_hash: hash, status_code: null, response_body: null, content_type: null, created_at: now.toISOString() })
      .onConflict((oc) => oc.columns(['owner', 'idem_key']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) {
      request.idempotencySlot = { owner, key };
      return;
    }

    const stored = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('owner', '=', owner)
      .where('idem_key', '=', key)
      .executeTakeFirstOrThrow();
    if (stored.request_hash !== hash) {
      throw new ApiError(409, 'idempotency_key_reused', 'This Idempotency-Key was already used with a different request.');
    }
    if (stored.status_code === null && Date.parse(stored.created_at) < now.getTime() - ABANDONED_MS) {
      // The first request died before answering (a crash): let this one take the slot over.
      const taken = await db
        .updateTable('idempotency_keys')
        .set({ created_at: now.toISOString() })
        .where('owner', '=', owner)
        .where('idem_key', '=', key)
        .where('created_at', '=', stored.created_at)
        .where('status_code', 'is', null)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1) {
        request.idempotencySlot = { owner, key };
        return;
      }
    }
    if (stored.status_code === null) {
      throw new ApiError(409, 'idempotency_in_progress', 'A request with this Idempotency-Key is still being processed.').withHeader('Retry-After', '1');
    }
    if (stored.status_code === null) throw new Error('unreachable: empty slot handled above');
    reply.header('Idempotent-Replayed', 'true');
    if (stored.content_type) reply.type(stored.content_type);
    return reply.code(stored.status_code).send(stored.response_body ?? '');
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const slot = request.idempotencySlot;
    if (!slot) return payload;
    request.idempotencySlot = undefined;
    await db
      .updateTable('idempotency_keys')
      .set({
        status_code: reply.statusCode,
        response_body: typeof payload === 'string' ? payload : payload == null ? '' : String(payload),
        content_type: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
      })
      .where('owner', '=', slot.owner)
      .where('idem_key', '=', slot.key)
      .execute();
    return payload;
  });
}

/** Removes slots past retention; run by a periodic job. */
/** Sandbox reset: the stored answers of every scope, or of one merchant's (`merchant:<id>`). */
export async function deleteIdempotencyKeys(executor: Executor, merchantId?: string): Promise<number> {
  let query = executor.deleteFrom('idempotency_keys');
  if (merchantId !== undefined) query = query.where('owner', '=', `merchant:${merchantId}`);
  return Number((await query.executeTakeFirst()).numDeletedRows);
}

export async function purgeIdempotencyKeys(database: Database, wallNow: Date): Promise<number> {
  const result = await database.db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', new Date(wallNow.getTime() - RETENTION_MS).toISOString())
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
