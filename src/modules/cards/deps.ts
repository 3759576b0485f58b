import type { ZeroAuthRequest, ZeroAuthResult } from '../../acquirer/types.js';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/connection.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { DataCipher } from '../../security/data-cipher.js';
import type { CvvStore } from './cvv-store.js';
import type { CardKeyService } from './keys.js';

/** A card check without a charge: the acquirer's zero auth, as the root hands it to this module. */
export type CardVerifier = (request: ZeroAuthRequest) => Promise<ZeroAuthResult>;

/** What the parts of the cards module share (CardService's charge side, ./tokens.ts, ./vault.ts); CardService builds it. */
export interface CardDeps {
  database: Database;
  cipher: DataCipher;
  clock: Clock;
  keys: CardKeyService;
  /** The CVVs of numberTokens, in this process's memory only (./cvv-store.ts). */
  cvvs: CvvStore;
  /** The acquirer's zero auth (the composition root hands it over): checks a card without charging it. */
  verifier?: CardVerifier;
  /** For the events of stored cards (card.updated). */
  queue?: JobQueue;
}
