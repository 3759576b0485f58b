import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { LegacyCanary } from '../../security/keyring.js';
import type { SealedColumn } from '../../security/sealed-columns.js';
import { cardKeyAd } from './keys.js';
import { sealChallengeAd, sealTokenAd, sealVaultAd } from './service.js';

/** The values the cards module seals under DATA_KEY (the root hands them to `gateway keys reencrypt`). */
export const CARD_SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'vault_cards', key: 'vault_id', column: 'pan_sealed', ad: sealVaultAd },
  { table: 'card_tokens', key: 'number_token', column: 'pan_sealed', ad: sealTokenAd },
  // The card of a payment whose 3-D Secure challenge is open (sealed here, kept in the payment's row, dropped when it ends).
  { table: 'payments', key: 'payment_id', column: 'three_ds', jsonField: 'sealedCard', ad: sealChallengeAd },
  { table: 'card_keys', key: 'key_id', column: 'private_sealed', ad: cardKeyAd },
];

/** The first start of any version made a card key: in a database from before the keyring, it stands in for the canary. */
export async function oldestCardKey(db: Kysely<DB>): Promise<LegacyCanary | undefined> {
  const cardKey = await db.selectFrom('card_keys').select(['key_id', 'private_sealed']).orderBy('created_at').limit(1).executeTakeFirst();
  return cardKey && { what: `its card key ${cardKey.key_id}`, sealed: cardKey.private_sealed, ad: cardKeyAd(cardKey.key_id) };
}
