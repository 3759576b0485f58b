import { describe, expect, it } from 'vitest';
import { decodeBase64Strict, detectEvidenceType } from '../../src/domain/file-signatures.js';

describe('evidence file signatures', () => {
  it('tells PDF, PNG and JPEG by their first bytes, and nothing else', () => {
    expect(detectEvidenceType(Buffer.from('%PDF-1.7\n'))).toBe('application/pdf');
    expect(detectEvidenceType(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]))).toBe('image/png');
    expect(detectEvidenceType(Uint8Array.from([0xff, 0xd8, 0xff, 0xe1]))).toBe('image/jpeg');
    expect(detectEvidenceType(Buffer.from('%PDF'))).toBeUndefined(); // too short to be one
    expect(detectEvidenceType(Uint8Array.from([0x89, 0x50, 0x4e, 0x47]))).toBeUndefined();
    expect(detectEvidenceType(Buffer.from('GIF89a'))).toBeUndefined();
    expect(detectEvidenceType(Buffer.from('<html>%PDF-'))).toBeUndefined();
    expect(detectEvidenceType(new Uint8Array())).toBeUndefined();
  });

  it('decodes only strict, padded, standard base64', () => {
    expect(Buffer.from(decodeBase64Strict('JVBERi0=')!).toString()).toBe('%PDF-');
    expect(decodeBase64Strict('JVBERi0')).toBeUndefined();
    expect(decodeBase64Strict('JVBE Ri0=')).toBeUndefined();
    expect(decodeBase64Strict('JVBERi0-')).toBeUndefined();
    expect(decodeBase64Strict('a===')).toBeUndefined();
    expect(decodeBase64Strict('')).toEqual(new Uint8Array());
  });
});
