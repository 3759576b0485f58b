import { describe, expect, it } from 'vitest';
import { brasiliaDate, brasiliaStart } from '../../src/domain/brasilia.js';
import { recurrenceIdOf } from '../../src/domain/pix-automatico.js';
import { cobrCancelRule, cobvRemoveRule, recCancelRule } from '../../src/domain/pix-cancel.js';

/**
 * The API Pix's cancel rules, on Brasília dates. The instants are written in UTC, so the results
 * do not depend on the zone of the machine that runs them: 02:59Z is 23:59 the day before in
 * Brasília, 03:00Z is 00:00.
 */
describe('API Pix cancel rules', () => {
  const cobr = { status: 'ATIVA', firstAttemptDate: '2026-03-16' };

  it('a cobr is cancelled up to the day before its first settlement date, in Brasília', () => {
    expect(cobrCancelRule(cobr, brasiliaDate(new Date('2026-03-15T12:00:00Z')))).toEqual({ ok: true });
    expect(cobrCancelRule(cobr, brasiliaDate(new Date('2026-03-16T02:59:00Z')))).toEqual({ ok: true });
    expect(cobrCancelRule(cobr, brasiliaDate(new Date('2026-03-16T03:00:00Z')))).toMatchObject({ ok: false, reason: expect.stringContaining('2026-03-16') });
    expect(cobrCancelRule(cobr, brasiliaDate(new Date('2026-03-20T12:00:00Z'))).ok).toBe(false);
    // A UTC date would refuse at 00:00Z, three hours early.
    expect(cobrCancelRule(cobr, brasiliaDate(new Date('2026-03-16T00:00:00Z'))).ok).toBe(true);
  });

  it('a cobr settled, refused or cancelled is not cancelled again', () => {
    for (const status of ['CONCLUIDA', 'REJEITADA', 'CANCELADA', 'EXPIRADA']) expect(cobrCancelRule({ ...cobr, status }, '2026-03-01').ok, status).toBe(false);
    expect(cobrCancelRule({ ...cobr, status: 'CRIADA' }, '2026-03-01').ok).toBe(true);
  });

  it('a rec is cancelled while CRIADA or APROVADA, never once it ended', () => {
    expect(recCancelRule({ status: 'CRIADA' }).ok).toBe(true);
    expect(recCancelRule({ status: 'APROVADA' }).ok).toBe(true);
    for (const status of ['EXPIRADA', 'CANCELADA', 'REJEITADA']) expect(recCancelRule({ status }), status).toMatchObject({ ok: false, reason: expect.stringContaining(status) });
  });

  it('a cobv is removed while ATIVA, whatever its dates, never once paid or removed', () => {
    expect(cobvRemoveRule({ status: 'ATIVA' }).ok).toBe(true);
    for (const status of ['CONCLUIDA', 'REMOVIDA_PELO_USUARIO_RECEBEDOR', 'REMOVIDA_PELO_PSP']) expect(cobvRemoveRule({ status }).ok, status).toBe(false);
  });

  it('Brasília days start at 03:00Z, and an idRec carries its Brasília creation date', () => {
    expect(brasiliaDate(new Date('2026-03-16T02:59:59.999Z'))).toBe('2026-03-15');
    expect(brasiliaDate(new Date(brasiliaStart('2026-03-16')))).toBe('2026-03-16');
    expect(recurrenceIdOf('00000000', new Date('2026-03-16T02:59:00Z'), () => 0).slice(10, 18)).toBe('20260315');
    expect(recurrenceIdOf('00000000', new Date('2026-03-16T03:00:00Z'), () => 0).slice(10, 18)).toBe('20260316');
  });
});
