import { readFile, writeFile } from 'node:fs/promises';
import { isIsoDate, toIsoDate } from '../domain/calendar.js';
import { invalid } from '../domain/errors.js';
import { decodeBankText } from '../modules/bankslips/cnab/text.js';
import type { Command } from './command.js';

/** The bank's CNAB 240 files from the command line: the same services as /admin/bankslips/remittance and /returns. */
export const BANKSLIP_COMMANDS: Command[] = [
  {
    name: 'bankslips remittance',
    summary: 'write the CNAB 240 remittance file of a day (the slips issued or cancelled that day) to stdout or --out',
    options: {
      date: { type: 'string', help: 'YYYY-MM-DD (default: today, business time)' },
      out: { type: 'string', help: 'write the file here instead of stdout (prints {file, records})' },
    },
    run: async ({ values, io, print, context }) => {
      const ctx = await context();
      const date = values.date === undefined ? toIsoDate(ctx.clock.now()) : String(values.date);
      if (!isIsoDate(date)) throw invalid('--date', `--date must be a date YYYY-MM-DD, got "${date}".`);
      const file = await ctx.bankSlips.remittance(date);
      if (values.out === undefined) {
        io.out(file.replace(/\r\n$/, ''));
        return 0;
      }
      await writeFile(String(values.out), file, 'latin1');
      print({ file: values.out, date, records: file.split('\r\n').length - 1 });
    },
  },
  {
    name: 'bankslips import',
    args: 'FILE',
    summary: "apply the bank's CNAB 240 return file; prints {applied, unchanged, rejected, errors}; exit 1 when errors is not empty",
    positionals: 1,
    run: async ({ positionals, print, context }) => {
      if (!positionals[0]) throw invalid('FILE', 'the return file is required: gateway bankslips import FILE');
      let bytes: Buffer;
      try {
        bytes = await readFile(positionals[0]);
      } catch (error) {
        throw invalid('FILE', `cannot read ${positionals[0]}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
      }
      const { summary } = await (await context()).bankSlips.importReturn(decodeBankText(bytes));
      print(summary);
      return summary.errors.length ? 1 : 0;
    },
  },
];
