// The interface every task module implements, and the option handling they share: a module
// declares its options (type, required, description) and gets them parsed and checked here, so
// that a definition with a bad option is refused when it is stored, not when it runs.
import type { Runtime } from '../core/context.ts';
import { ParameterError } from '../errors.ts';

export type OptionType = 'int' | 'bool' | 'str';

/** One option as GET /periodictask/options/<module> describes it (privacyIDEA's shape). */
export interface OptionSpec {
  type: OptionType;
  required: boolean;
  description: string;
}

/** The options of a task after parsing: numbers, booleans and strings by their spec. */
export type ParsedOptions = Record<string, number | boolean | string>;

/** What a run reports: a short summary for the log and the CLI, e.g. `{ deleted: 3 }`. */
export type RunSummary = Record<string, number | string>;

export interface TaskModule {
  /** The identifier definitions name in `taskmodule`. */
  readonly name: string;
  readonly description: string;
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Checks that go beyond each option's type (e.g. at least one limit); throws ParameterError. */
  check?(options: ParsedOptions): void;
  run(rt: Runtime, options: ParsedOptions): Promise<RunSummary>;
}

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off', '']);

function parseOption(
  module: string,
  key: string,
  spec: OptionSpec,
  value: string,
): number | boolean | string {
  const bad = (what: string) =>
    new ParameterError(`Option '${key}' of task module ${module} must be ${what}, not '${value}'`);
  switch (spec.type) {
    case 'int': {
      if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(Number(value))) throw bad('a whole number ≥ 0');
      return Number(value);
    }
    case 'bool': {
      const v = value.trim().toLowerCase();
      if (TRUE.has(v)) return true;
      if (FALSE.has(v)) return false;
      throw bad('true or false');
    }
    case 'str':
      return value;
  }
}

/**
 * The options of a definition checked against the module: unknown keys and missing required
 * options are refused, each value must parse as its type, then the module's own check.
 */
export function parseOptions(module: TaskModule, given: Readonly<Record<string, string>>): ParsedOptions {
  const out: ParsedOptions = {};
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(module.options, key))
      throw new ParameterError(
        `Unknown option '${key}' of task module ${module.name}: use ${Object.keys(module.options).join(', ')}`,
      );
  }
  for (const [key, spec] of Object.entries(module.options)) {
    const value = given[key];
    if (value === undefined || value === '') {
      if (spec.required) throw new ParameterError(`Task module ${module.name} needs the option '${key}'`);
      continue;
    }
    out[key] = parseOption(module.name, key, spec, value);
  }
  module.check?.(out);
  return out;
}
