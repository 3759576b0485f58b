/**
 * Banks write return files in UTF-8 or in Latin-1 (names with accents). Latin-1 is one byte a
 * character, so a record stays 240 characters either way: read UTF-8 when the bytes are valid
 * UTF-8, Latin-1 otherwise.
 */
export function decodeBankText(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return Buffer.from(bytes).toString('latin1');
  }
}
