import { createHash } from 'node:crypto';
import { decodeBase64Strict, detectEvidenceType, type EvidenceType } from '../../domain/file-signatures.js';
import { invalid, type ErrorItem } from '../../domain/errors.js';
import type { EvidenceBody } from './schemas.js';

/** One file, the largest a card network's portal takes comfortably; several make one submission. */
export const MAX_FILE_BYTES = 2 * 1024 * 1024;
/** All files of one submission together (Cielo's chargeback API takes 7 MB a case). */
export const MAX_SUBMISSION_BYTES = 5 * 1024 * 1024;
export const ACCEPTED_TYPES: readonly EvidenceType[] = ['application/pdf', 'image/png', 'image/jpeg'];

export interface EvidenceFile {
  fileName: string;
  contentType: EvidenceType;
  sizeBytes: number;
  sha256: string;
  /** The bytes as sent (base64): what is sealed. */
  contentBase64: string;
}

/**
 * The submission's files, checked all at once (every problem in one error array, nothing
 * stored when there is one): PDF, PNG or JPEG only, by their bytes as well as their declared
 * type; not empty; within the sizes above; a plain file name. Text or at least one file.
 */
export function checkEvidence(body: EvidenceBody): { text: string | null; files: EvidenceFile[] } {
  const errors: ErrorItem[] = [];
  const files: EvidenceFile[] = [];
  let total = 0;
  for (const [i, file] of (body.files ?? []).entries()) {
    const tag = (field: string) => `files[${i}].${field}`;
    if (/[\\/\u0000-\u001f]/.test(file.fileName) || file.fileName.trim() === '') errors.push({ tag: tag('fileName'), description: 'fileName must be a plain file name (no path, no control characters).' });
    const declared = file.contentType.toLowerCase().split(';')[0].trim();
    if (!(ACCEPTED_TYPES as readonly string[]).includes(declared)) {
      errors.push({ tag: tag('contentType'), description: `contentType must be one of ${ACCEPTED_TYPES.join(', ')}.` });
      continue;
    }
    const bytes = decodeBase64Strict(file.contentBase64);
    if (!bytes) {
      errors.push({ tag: tag('contentBase64'), description: 'contentBase64 must be the file in standard, padded base64.' });
      continue;
    }
    if (bytes.length === 0) errors.push({ tag: tag('contentBase64'), description: 'The file is empty.' });
    else if (bytes.length > MAX_FILE_BYTES) errors.push({ tag: tag('contentBase64'), description: `The file has ${bytes.length} bytes; at most ${MAX_FILE_BYTES} are taken.` });
    else if (detectEvidenceType(bytes) !== declared) errors.push({ tag: tag('contentBase64'), description: `The file's bytes are not a ${declared} file: send PDF, PNG or JPEG files as what they are.` });
    total += bytes.length;
    files.push({ fileName: file.fileName, contentType: declared as EvidenceType, sizeBytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), contentBase64: file.contentBase64 });
  }
  if (total > MAX_SUBMISSION_BYTES) errors.push({ tag: 'files', description: `The files have ${total} bytes together; at most ${MAX_SUBMISSION_BYTES} are taken per submission.` });
  const text = body.text?.trim() ? body.text : null;
  if (text === null && (body.files ?? []).length === 0) errors.push({ tag: 'text', description: 'Send a text, files, or both.' });
  if (errors.length > 0) throw invalid(errors);
  return { text, files };
}
