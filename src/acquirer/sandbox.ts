import { randomInt } from 'node:crypto';
import type { Acquirer, AuthorizeRequest, AuthorizeResult, CallContext, CancelRequest, CancelResult, ReturnCode } from './types.js';
import { RETURN_MESSAGES } from './types.js';

/**
 * The sandbox acquirer: decides by card number (contract section 5, the first match decides),
 * or by a stored card's forced outcome. It stands for a remote system, so it keeps its own
 * ledger of what it answered per idempotency key: a repeated call returns the same answer and
 * never authorizes twice. The ledger lives in this process's memory, bounded, as a remote
 * acquirer's would live elsewhere; it is not part of the gateway's database.
 */
const TEST_CARDS: Record<string, ReturnCode> = {
  '4000000000009995': '51',
  '4000000000000002': '05',
  '4000000000000069': '54',
  '4000000000009987': '46',
  '4000000000000119': '96',
};

const LEDGER_LIMIT = 500_000;
const AUTH_CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789';

function authorizationCode(): string {
  let code = '';
  for (let i = 0; i < 6; i++) code += AUTH_CODE_ALPHABET[randomInt(AUTH_CODE_ALPHABET.length)];
  return code;
}

/** 18 random digits, first non-zero: collisions are negligible and the column is unique anyway. */
function nsu(): string {
  return `${randomInt(1, 10)}${String(randomInt(0, 1e8)).padStart(8, '0')}${String(randomInt(0, 1e9)).padStart(9, '0')}`;
}

export class SandboxAcquirer implements Acquirer {
  private readonly ledger = new Map<string, AuthorizeResult>();
  private readonly canceled = new Set<string>();
  /** Calls seen, for tests that prove a crash recovery does not authorize twice. */
  authorizeCalls = 0;

  async authorize(request: AuthorizeRequest, { idempotencyKey }: CallContext): Promise<AuthorizeResult> {
    const previous = this.ledger.get(idempotencyKey);
    if (previous) return previous;
    this.authorizeCalls += 1;
    const code = request.forcedReturnCode ?? TEST_CARDS[request.card.pan] ?? '00';
    const result = this.resultFor(code, idempotencyKey);
    this.remember(idempotencyKey, result);
    return result;
  }

  async cancel(request: CancelRequest, _context: CallContext): Promise<CancelResult> {
    const key = request.acquirerReference.replace(/^sbx_/, '');
    const authorized = this.ledger.get(key);
    // A reference this acquirer never approved cannot be cancelled; a second cancel is harmless.
    if (authorized && authorized.outcome !== 'approved') return { outcome: 'failed', returnMessage: 'Not an approved authorization' };
    this.canceled.add(key);
    return { outcome: 'canceled' };
  }

  async lookup(idempotencyKey: string): Promise<AuthorizeResult | null> {
    return this.ledger.get(idempotencyKey) ?? null;
  }

  private resultFor(code: ReturnCode, key: string): AuthorizeResult {
    const returnMessage = RETURN_MESSAGES[code];
    if (code === '00') {
      return { outcome: 'approved', returnCode: '00', returnMessage, authorizationCode: authorizationCode(), nsu: nsu(), acquirerReference: `sbx_${key}` };
    }
    if (code === '96') return { outcome: 'failed', returnCode: '96', returnMessage };
    return { outcome: 'declined', returnCode: code, returnMessage, nsu: nsu(), acquirerReference: `sbx_${key}` };
  }

  private remember(key: string, result: AuthorizeResult): void {
    if (this.ledger.size >= LEDGER_LIMIT) {
      // Maps iterate in insertion order: drop the oldest answer.
      const oldest = this.ledger.keys().next().value;
      if (oldest !== undefined) this.ledger.delete(oldest);
    }
    this.ledger.set(key, result);
  }
}

