import type { AppContext } from '../root/context.js';
import type { Config } from '../config.js';
import type { Database } from '../db/connection.js';

/** The shape of a `gateway` command; the table of commands (commands.ts) and each group of commands import it. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** What a command's run gets: its parsed flags, and the database or whole context opened on demand. */
export interface Run {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  config: Config;
  io: CliIo;
  print: (value: unknown) => void;
  database: () => Promise<Database>;
  context: () => Promise<AppContext>;
}

export interface OptionSpec {
  type: 'string' | 'boolean';
  help: string;
  required?: boolean;
  /** Whole numbers only, within these bounds. */
  integer?: [number, number];
}

export interface Command {
  /** `merchants create`; the words typed after `gateway`. */
  name: string;
  /** The arguments as shown in the usage line, after the name. */
  args?: string;
  summary: string;
  options?: Record<string, OptionSpec>;
  /** Positional arguments accepted (0 by default). */
  positionals?: number;
  /** Also checks the production secrets first (false only for commands that touch no data). */
  needsSecrets?: boolean;
  run: (run: Run) => Promise<number | void>;
}
