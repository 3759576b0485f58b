import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ConfigError } from '../config-error.js';
import type { Database } from '../db/connection.js';
import type { DB } from '../db/schema.js';
import { DataCipher, SealedValueError } from './data-cipher.js';

/**
 * The keyring's checks at start and its lookup keys (docs/architecture.md, "Keys and rotation").
 *
 * - The canary: a known value sealed under DATA_KEY in `settings`, written at first start. Every
 *   start opens it with the keyring (DATA_KEY + DATA_KEYS_PREVIOUS) and refuses to start when it
 *   does not open: an instance with the wrong key would otherwise report ready, then answer 500
 *   to stored-card payments and 401 to the other instances' tokens. `gateway keys reencrypt`
 *   moves the canary last, only once no other value is left under an older key, so a canary
 *   under key K means no stored value needs a key older than K.
 * - Lookup keys: fingerprints and request hashes are compared with values computed months
 *   earlier, so their keys must not follow DATA_KEY's rotation. Each is 32 random bytes, kept
 *   sealed in `settings` (re-sealed by reencrypt like any value). A database from before the
 *   keyring keeps HKDF(its original DATA_KEY, purpose), the key its stored values were computed
 *   with, captured at the first start after the upgrade.
 */
export const CANARY_SETTING = 'data_key_canary';
export const CANARY_PLAINTEXT = 'payment-gateway data key canary';
export const LOOKUP_PURPOSES = ['card-fingerprint', 'idempotency-request-hash'] as const;
export type LookupPurpose = (typeof LOOKUP_PURPOSES)[number];
export const LOOKUP_KEY_SETTING_PREFIX = 'lookup_key:';
/** Associated data of a value sealed in `settings`: bound to its row's key. */
export const settingAd = (key: string) => `settings:${key}`;

/** A sealed value that stands in for the canary in a database from before the keyring. */
export interface LegacyCanary {
  /** Names it in a refusal ("its card key k1"). */
  what: string;
  sealed: string;
  ad: string;
}

export interface KeyringOptions {
  /** Added to the refusal (the sandbox keeps a generated key in the database, say). */
  hint?: string;
  /** Without a canary: the value its owner sealed first (the cards module's oldest card key), if any. */
  legacyCanary?: (db: Kysely<DB>) => Promise<LegacyCanary | undefined>;
}

async function readSetting(db: Kysely<DB>, key: string): Promise<string | undefined> {
  return (await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst())?.value;
}

/** Stores the value unless another instance got there first; answers the value that won. */
async function settingOnce(db: Kysely<DB>, key: string, value: () => string): Promise<string> {
  const existing = await readSetting(db, key);
  if (existing !== undefined) return existing;
  await db.insertInto('settings').values({ key, value: value() }).onConflict((oc) => oc.column('key').doNothing()).execute();
  return (await readSetting(db, key))!;
}

function ringText(cipher: DataCipher): string {
  const previous = cipher.keyIds.slice(1);
  return `DATA_KEY is key id ${cipher.currentKeyId}; DATA_KEYS_PREVIOUS ${previous.length ? `holds ${previous.join(', ')}` : 'is empty'}`;
}

/**
 * Opens the canary (writing it on a new database), loads the lookup keys into `cipher`, and
 * throws a ConfigError naming DATA_KEY and DATA_KEYS_PREVIOUS when the keyring cannot open
 * this database's data. Run it before anything seals or reads a sealed value.
 */
export async function openKeyring(database: Database, cipher: DataCipher, options: KeyringOptions = {}): Promise<void> {
  const db = database.db;
  const refuse = (what: string, sealed: string, error: unknown) => {
    const keyId = DataCipher.keyIdOf(sealed) ?? 'unknown';
    const why = cipher.hasKey(keyId)
      ? `${what} is sealed under data key ${keyId}, which is in the keyring, but it does not open (${error instanceof Error ? error.message : 'failed'})`
      : `${what} is sealed under data key ${keyId}, and ${ringText(cipher)}`;
    return new ConfigError(
      `Refusing to start: DATA_KEY does not open the data in this database. ${why}. ` +
        'Start with the key this database was sealed with as DATA_KEY, or, while rotating, list it in DATA_KEYS_PREVIOUS ' +
        '(comma-separated, base64; docs/operations.md, "Rotating DATA_KEY").' +
        (options.hint ? ` ${options.hint}` : ''),
    );
  };
  const open = (what: string, sealed: string, ad: string): string => {
    try {
      return cipher.decrypt(sealed, ad);
    } catch (error) {
      if (error instanceof SealedValueError) throw refuse(what, sealed, error);
      throw error;
    }
  };

  let canary = await readSetting(db, CANARY_SETTING);
  /** The key that sealed everything in a database from before the keyring (it could not rotate: one key). */
  let legacyKeyId: string | undefined;
  if (canary !== undefined) {
    open('its canary (settings.data_key_canary)', canary, settingAd(CANARY_SETTING));
  } else {
    // No canary: a new database, or one from before the keyring. The first start of any version
    // made a card key (its private key sealed), so that one stands in for the canary.
    const first = await options.legacyCanary?.(db);
    if (first) {
      open(first.what, first.sealed, first.ad);
      legacyKeyId = DataCipher.keyIdOf(first.sealed);
    }
  }

  for (const purpose of LOOKUP_PURPOSES) {
    const name = `${LOOKUP_KEY_SETTING_PREFIX}${purpose}`;
    const sealed = await settingOnce(db, name, () => {
      const key = legacyKeyId ? cipher.deriveKey(purpose, legacyKeyId) : randomBytes(32);
      return cipher.encrypt(key.toString('base64'), settingAd(name), legacyKeyId);
    });
    cipher.setLookupKey(purpose, Buffer.from(open(`its lookup key (settings.${name})`, sealed, settingAd(name)), 'base64'));
  }

  if (canary === undefined) {
    // Under the key of the data already here (a canary under key K says nothing needs an older key).
    // Another instance may have written its own canary first (under another key): open the winner.
    canary = await settingOnce(db, CANARY_SETTING, () => cipher.encrypt(CANARY_PLAINTEXT, settingAd(CANARY_SETTING), legacyKeyId));
    open('its canary (settings.data_key_canary)', canary, settingAd(CANARY_SETTING));
  }
}
