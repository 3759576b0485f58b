import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import {
  assertTransition,
  assertTransitions,
  BANK_SLIP_STATUSES,
  BILLING_STATUSES,
  canMove,
  DISPUTE_STATUSES,
  IllegalTransition,
  movesFrom,
  PAYMENT_STATUSES,
  PIX_CHARGE_STATUSES,
  REFUND_STATUSES,
  sourcesOf,
  SUBSCRIPTION_STATUSES,
  type Machine,
  type StatusOf,
} from '../../src/domain/lifecycles.js';

interface Case<M extends Machine> {
  states: readonly StatusOf<M>[];
  allowed: [StatusOf<M>, StatusOf<M>][];
  illegal: [StatusOf<M>, StatusOf<M>][];
  terminal: StatusOf<M>[];
}

// Each machine's moves as its writers make them (see the lifecycles table's comments).
const CASES: { [M in Machine]: Case<M> } = {
  payments: {
    states: PAYMENT_STATUSES,
    allowed: [
      ['Pending', 'Authorized'], ['Pending', 'Blocked'], ['Pending', 'Denied'], ['Pending', 'PendingAuthentication'],
      ['PendingAuthentication', 'Pending'], ['PendingAuthentication', 'Denied'],
      ['Authorized', 'Paid'], ['Authorized', 'Canceled'], ['Blocked', 'Authorized'], ['Blocked', 'Canceled'], ['Paid', 'Canceled'],
    ],
    illegal: [['Denied', 'Authorized'], ['Canceled', 'Authorized'], ['Paid', 'Authorized'], ['Blocked', 'Paid'], ['Pending', 'Canceled'], ['PendingAuthentication', 'Authorized'], ['Authorized', 'Pending']],
    terminal: ['Denied', 'Canceled'],
  },
  refunds: {
    states: REFUND_STATUSES,
    allowed: [['Pending', 'Succeeded'], ['Pending', 'Failed']],
    illegal: [['Succeeded', 'Failed'], ['Failed', 'Succeeded'], ['Succeeded', 'Pending']],
    terminal: ['Succeeded', 'Failed'],
  },
  disputes: {
    states: DISPUTE_STATUSES,
    allowed: [
      ['NeedsResponse', 'UnderReview'], ['NeedsResponse', 'Won'], ['NeedsResponse', 'Lost'], ['NeedsResponse', 'Accepted'],
      ['UnderReview', 'Won'], ['UnderReview', 'Lost'], ['UnderReview', 'Accepted'],
    ],
    illegal: [['Won', 'Lost'], ['Lost', 'Won'], ['Accepted', 'UnderReview'], ['UnderReview', 'NeedsResponse']],
    terminal: ['Won', 'Lost', 'Accepted'],
  },
  billings: {
    states: BILLING_STATUSES,
    allowed: [['Opened', 'Paid'], ['Opened', 'Denied'], ['Opened', 'PaymentInvalid'], ['Opened', 'Canceled']],
    illegal: [['Paid', 'Opened'], ['Canceled', 'Opened'], ['Denied', 'Paid'], ['PaymentInvalid', 'Canceled']],
    terminal: ['Paid', 'Denied', 'PaymentInvalid', 'Canceled'],
  },
  subscriptions: {
    states: SUBSCRIPTION_STATUSES,
    allowed: [
      ['PendingAuthorization', 'Active'], ['PendingAuthorization', 'Canceled'],
      ['Active', 'Blocked'], ['Active', 'Canceled'], ['Active', 'Finished'],
      ['Blocked', 'Active'], ['Blocked', 'Canceled'], ['Canceled', 'Active'],
    ],
    illegal: [['Finished', 'Active'], ['Canceled', 'Blocked'], ['Blocked', 'Finished'], ['Active', 'PendingAuthorization'], ['Canceled', 'PendingAuthorization']],
    terminal: ['Finished'],
  },
  pixCharges: {
    states: PIX_CHARGE_STATUSES,
    allowed: [['Pending', 'Paid'], ['Pending', 'Expired'], ['Expired', 'Paid']],
    illegal: [['Paid', 'Pending'], ['Paid', 'Expired'], ['Expired', 'Pending']],
    terminal: ['Paid'],
  },
  bankSlips: {
    states: BANK_SLIP_STATUSES,
    allowed: [[1, 2], [1, 99], [2, 3], [2, 9], [2, 99], [9, 3], [9, 99]],
    illegal: [[3, 2], [99, 2], [9, 2], [1, 3], [1, 9], [3, 99]],
    terminal: [3, 99],
  },
};

describe.each(Object.keys(CASES) as Machine[])('the %s machine', (machine) => {
  const c = CASES[machine] as Case<Machine>;

  it('allows exactly the moves its writers make', () => {
    for (const [from, to] of c.allowed) {
      expect(canMove(machine, from, to), `${from} -> ${to}`).toBe(true);
      expect(() => assertTransition(machine, from, to)).not.toThrow();
    }
    const count = c.states.reduce((n, s) => n + movesFrom(machine, s).length, 0);
    expect(count).toBe(c.allowed.length);
  });

  it('refuses other moves with IllegalTransition, a 409 conflict', () => {
    for (const [from, to] of c.illegal) {
      expect(canMove(machine, from, to), `${from} -> ${to}`).toBe(false);
      let thrown: unknown;
      try {
        assertTransition(machine, from, to);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(IllegalTransition);
      expect(thrown).toBeInstanceOf(DomainError);
      expect((thrown as DomainError).kind).toBe('conflict');
      expect((thrown as DomainError).errors[0].tag).toBe(machine === 'disputes' ? 'status' : 'invalid_state');
    }
  });

  it('gives its final states no exits, and every state a place in the table', () => {
    for (const s of c.terminal) expect(movesFrom(machine, s)).toEqual([]);
    for (const s of c.states) for (const to of movesFrom(machine, s)) expect(c.states).toContain(to);
    const final = c.states.filter((s) => movesFrom(machine, s).length === 0);
    expect(final.sort()).toEqual([...c.terminal].sort());
  });

  it('derives each target state\'s sources from the table', () => {
    for (const to of c.states) {
      const sources = c.allowed.filter(([, t]) => t === to).map(([f]) => f);
      expect([...sourcesOf(machine, to)].sort()).toEqual(sources.sort());
    }
  });
});

describe('assertTransitions', () => {
  it('treats a write that keeps the status as no move', () => {
    expect(() => assertTransitions('disputes', ['NeedsResponse', 'UnderReview'], 'UnderReview')).not.toThrow();
    expect(() => assertTransitions('subscriptions', ['Blocked', 'Finished'], 'Active')).toThrow(IllegalTransition);
  });
});
