/**
 * What a file is, by its first bytes (its "magic number"), for the few types the gateway takes
 * as dispute evidence: a declared content type is believed only when the bytes agree.
 * PDF: "%PDF-" (ISO 32000); PNG: the 8-byte signature of RFC 2083; JPEG: SOI then a marker (FF D8 FF).
 */
export type EvidenceType = 'application/pdf' | 'image/png' | 'image/jpeg';

const SIGNATURES: readonly [EvidenceType, readonly number[]][] = [
  ['application/pdf', [0x25, 0x50, 0x44, 0x46, 0x2d]],
  ['image/png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['image/jpeg', [0xff, 0xd8, 0xff]],
];

export function detectEvidenceType(bytes: Uint8Array): EvidenceType | undefined {
  return SIGNATURES.find(([, signature]) => signature.length <= bytes.length && signature.every((b, i) => bytes[i] === b))?.[0];
}

/** Strict base64 (RFC 4648, standard alphabet, padded): anything else is not a file we decode. */
export function decodeBase64Strict(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  return Uint8Array.from(Buffer.from(text, 'base64'));
}
