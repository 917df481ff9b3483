// The answers of `authsrv setup`: from its flag when given, else asked on the terminal (with
// @inquirer/prompts), else the default; without a terminal (or with --non-interactive) a missing
// answer that has no default is an error naming the flag that gives it.
import { ParameterError } from '../errors.ts';

export interface Question {
  message: string;
  /** The flag that answers it, named in the error when it is missing. */
  flag: string;
  /** What the flag gave. */
  given?: string | undefined;
  default?: string;
}

export class Answers {
  readonly interactive: boolean;

  constructor(interactive: boolean) {
    this.interactive = interactive;
  }

  async text(q: Question): Promise<string> {
    if (q.given !== undefined) return q.given;
    if (this.interactive) {
      const { input } = await import('@inquirer/prompts');
      return input({
        message: q.message,
        ...(q.default !== undefined ? { default: q.default } : {}),
        required: true,
      });
    }
    if (q.default !== undefined) return q.default;
    throw new ParameterError(`${q.message}: give ${q.flag}`);
  }

  /** A hidden answer (passwords, PINs); empty allowed. */
  async secret(q: Question): Promise<string> {
    if (q.given !== undefined) return q.given;
    if (this.interactive) {
      const { password } = await import('@inquirer/prompts');
      return password({ message: q.message, mask: '*' });
    }
    return q.default ?? '';
  }

  async choice<T extends string>(q: Question & { choices: { value: T; name: string }[] }): Promise<T> {
    if (q.given !== undefined) return q.given as T;
    if (this.interactive) {
      const { select } = await import('@inquirer/prompts');
      return select<T>({ message: q.message, choices: q.choices });
    }
    throw new ParameterError(`${q.message}: give ${q.flag}`);
  }

  /** Yes or no; a flag given (true or false) answers without asking. */
  async confirm(message: string, given: boolean | undefined, fallback: boolean): Promise<boolean> {
    if (given !== undefined) return given;
    if (!this.interactive) return fallback;
    const { confirm } = await import('@inquirer/prompts');
    return confirm({ message, default: fallback });
  }
}
