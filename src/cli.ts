import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { CliIo, Command, Run } from './cli/command.js';
import { COMMANDS, commandHelp, usage } from './cli/commands.js';
import { assertProductionSecrets, ConfigError, loadConfig, type Config } from './config.js';
import { createContext, type AppContext } from './root/context.js';
import { openDatabase, type Database } from './db/connection.js';
import { DomainError, invalid } from './domain/errors.js';
import { createLogger } from './logger.js';

export type { CliIo } from './cli/command.js';

/**
 * The operator's command line: the same services as the /admin API, printing JSON. The commands
 * and their flags are in src/cli/commands.ts (`gateway --help` lists them).
 * Exit codes: 0 done (or help shown); 1 refused, with the error array on stdout; 2 bad
 * configuration; 64 an unknown command or a bad flag (the error array names it, usage on stderr).
 */
const defaultIo: CliIo = {
  out: (t) => process.stdout.write(`${t}\n`),
  err: (t) => process.stderr.write(`${t}\n`),
};

const USAGE_ERROR = 64;

/** The longest command name the words start with (`merchants create` before a group named `merchants`). */
function findCommand(words: string[]): { command: Command; rest: string[] } | undefined {
  for (const length of [2, 1]) {
    const name = words.slice(0, length).join(' ');
    const command = COMMANDS.find((c) => c.name === name);
    if (command && words.slice(0, length).every((w) => !w.startsWith('-'))) return { command, rest: words.slice(length) };
  }
  return undefined;
}

/** parseArgs' errors, turned into the error array naming the flag or argument at fault. */
function argumentError(error: unknown, command: Command): DomainError | undefined {
  const code = (error as { code?: string }).code;
  if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS')) return undefined;
  const message = (error as Error).message;
  const flag = /'(-{1,2}[^' ]+)/.exec(message)?.[1] ?? 'arguments';
  const known = Object.keys(command.options ?? {}).map((o) => `--${o}`);
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    return invalid(flag, `"gateway ${command.name}" has no option ${flag}; it takes ${known.length ? known.join(', ') : 'no options'} (gateway ${command.name} --help).`);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return invalid(flag, `${flag}: ${message.replace(/^Option '[^']*' /, '')}.`);
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return invalid('arguments', `Unexpected argument ${/'([^']*)'/.exec(message)?.[0] ?? ''} for "gateway ${command.name}".`);
  return invalid('arguments', message);
}

/** Required flags present, integer flags whole and in range: each problem names its flag. */
function checkValues(command: Command, values: Record<string, string | boolean | undefined>): void {
  const problems: { tag: string; description: string }[] = [];
  for (const [name, spec] of Object.entries(command.options ?? {})) {
    const value = values[name];
    if (spec.required && (value === undefined || value === '')) problems.push({ tag: `--${name}`, description: `--${name} is required (${spec.help}).` });
    if (spec.integer && value !== undefined) {
      const n = Number(value);
      const [min, max] = spec.integer;
      if (!/^\d+$/.test(String(value)) || n < min || n > max) problems.push({ tag: `--${name}`, description: `--${name} must be a whole number from ${min} to ${max}, got "${value}".` });
    }
  }
  if (problems.length) throw invalid(problems);
}

/** Runs one command; answers the process exit code. `context` lets tests share their database. */
export async function runCli(argv: string[], io: CliIo = defaultIo, context?: AppContext): Promise<number> {
  const print = (value: unknown): void => {
    io.out(JSON.stringify(value, null, 2));
  };
  const beforeTerminator = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  const wantsHelp = beforeTerminator.some((a) => a === '--help' || a === '-h');
  const words = argv[0] === 'help' ? argv.slice(1) : argv;
  const found = findCommand(words);

  // Help never opens a database or runs anything.
  if (wantsHelp || argv[0] === 'help') {
    if (found) io.out(commandHelp(found.command));
    else {
      const group = COMMANDS.filter((c) => words[0] && c.name.split(' ')[0] === words[0]);
      io.out(usage(group.length ? group : COMMANDS));
    }
    return 0;
  }
  if (!found) {
    const typed = words.filter((w) => !w.startsWith('-')).slice(0, 2).join(' ');
    print([{ tag: 'command', description: typed ? `Unknown command "gateway ${typed}" (gateway --help lists them).` : 'A command is required (gateway --help lists them).' }]);
    io.err(usage());
    return USAGE_ERROR;
  }

  const { command, rest } = found;
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    const options = Object.fromEntries(Object.entries(command.options ?? {}).map(([name, o]) => [name, { type: o.type }]));
    ({ values, positionals } = parseArgs({ args: rest, options, strict: true, allowPositionals: (command.positionals ?? 0) > 0 }));
    if (positionals.length > (command.positionals ?? 0)) throw Object.assign(new TypeError(`Unexpected argument '${positionals.at(-1)}'`), { code: 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' });
    checkValues(command, values);
  } catch (error) {
    const problem = error instanceof DomainError ? error : argumentError(error, command);
    if (!problem) throw error;
    print(problem.errors);
    io.err(`usage: gateway ${commandHelp(command).split('\n')[0].replace(/^usage: gateway /, '')}`);
    return USAGE_ERROR;
  }

  let config: Config | undefined;
  let database: Database | undefined;
  let ctx = context;
  try {
    config = context?.config ?? loadConfig();
    if (command.needsSecrets !== false) assertProductionSecrets(config);
    const run: Run = {
      values,
      positionals,
      config,
      io,
      print,
      database: async () => context?.database ?? ctx?.database ?? (database ??= await openDatabase(config!.databaseUrl)),
      context: async () => (ctx ??= await createContext(config!, { logger: createLogger('warn') })),
    };
    return (await command.run(run)) ?? 0;
  } catch (error) {
    if (error instanceof DomainError) {
      print(error.errors);
      return 1;
    }
    if (error instanceof ConfigError) {
      print([{ tag: 'configuration', description: error.message }]);
      io.err(error.message);
      return 2;
    }
    throw error;
  } finally {
    if (!context) {
      if (ctx) await ctx.database.close();
      else if (database) await database.close();
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`${JSON.stringify([{ tag: 'internal', description: error instanceof Error ? error.message : String(error) }])}\n`);
      process.exit(1);
    },
  );
}
