import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/connection.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { DataCipher } from '../../security/data-cipher.js';
import { recordEvents } from '../webhooks/outbox.js';
import { cardFingerprint, validateCard } from './card-data.js';
import { cardUpdatesRepository, vaultCardsRepository as vault } from './repository.js';

/** Where a stored card's replacement came from. */
export type CardUpdateSource = 'account_updater' | 'card_update_link';

/** A stored card's replacement, as recorded: never a number beyond the last four digits. */
export interface CardUpdate {
  vaultId: string;
  brand: string;
  oldLast4: string;
  newLast4: string;
  expirationMonth: string;
  expirationYear: string;
  source: CardUpdateSource;
  updatedAt: string;
}

export interface CardHistoryEntry {
  updatedAt: string;
  source: CardUpdateSource;
  oldLast4: string;
  newLast4: string;
  oldExpiry: string;
  newExpiry: string;
}

/**
 * A stored card replaced in place: the same vaultId, the new number sealed under it, the new
 * expiry; its history row and the `card.updated` event (last four digits only) in the same
 * transaction. The network reference and a sandbox forced outcome belong to the old card and go
 * with it. Answers null (nothing changed) when the replacement is not a valid card, or the
 * stored card is gone.
 */
export async function replaceStoredCard(
  deps: { database: Database; cipher: DataCipher; clock: Clock; queue?: JobQueue },
  merchantId: string,
  vaultId: string,
  replacement: { pan: string; expMonth: string; expYear: string },
  source: CardUpdateSource,
  seal: (pan: string) => string,
): Promise<CardUpdate | null> {
  let card;
  try {
    card = validateCard({ number: replacement.pan, expirationMonth: replacement.expMonth, expirationYear: replacement.expYear }, deps.clock.now(), '');
  } catch {
    return null;
  }
  const at = deps.clock.now().toISOString();
  return deps.database.db.transaction().execute(async (trx) => {
    const old = await vault.findLive(trx, merchantId, vaultId);
    if (!old) return null;
    const moved = await vault.replace(trx, merchantId, vaultId, {
      pan_sealed: seal(card.pan),
      brand: card.brand,
      bin: card.bin,
      last4: card.last4,
      pan_length: card.panLength,
      exp_month: card.expMonth,
      exp_year: card.expYear,
      fingerprint: cardFingerprint(deps.cipher, card.pan),
    });
    if (!moved) return null;
    await cardUpdatesRepository.insert(trx, {
      update_id: randomUUID(),
      vault_id: vaultId,
      merchant_id: merchantId,
      source,
      old_last4: old.last4,
      new_last4: card.last4,
      old_expiry: `${old.exp_month}/${old.exp_year}`,
      new_expiry: `${card.expMonth}/${card.expYear}`,
      created_at: at,
    });
    const update: CardUpdate = { vaultId, brand: card.brand, oldLast4: old.last4, newLast4: card.last4, expirationMonth: card.expMonth, expirationYear: card.expYear, source, updatedAt: at };
    // A stored card is the merchant's, not one account's: every account's subscription that chose the type hears it.
    if (deps.queue) await recordEvents(trx, deps.queue, [{ merchantId, accountNumber: null, type: 'card.updated', at, data: { ...update } }]);
    return update;
  });
}
