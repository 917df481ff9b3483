// RequestMangler: deletes or sets a parameter of the request (reference 7.1 "RequestMangler"). Pre,
// the endpoint sees the changed parameters. `set` may depend on another parameter: with
// match_parameter and match_pattern, it sets only when the pattern matches that parameter's value
// from its start (Python's re.match), and `{0}`, `{1}` … in the value are the pattern's groups.
import type { EventHandlerModule, EventRun, RequestParameters } from './module.ts';

/** The value with `{n}` replaced by the n-th group of the match (an unmatched group: empty). */
export function formatGroups(value: string, groups: readonly (string | undefined)[]): string {
  return value.replace(/\{(\d+)\}/g, (whole, n: string) => {
    const i = Number(n);
    return i < groups.length ? (groups[i] ?? '') : whole;
  });
}

/** The match of the pattern at the start of the text (Python's re.match), or undefined. */
function matchAtStart(pattern: string, text: string): RegExpExecArray | undefined {
  let re: RegExp;
  try {
    re = new RegExp(pattern, 'y');
  } catch {
    throw new Error(`RequestMangler: match_pattern is not a regular expression: ${pattern}`);
  }
  return re.exec(text) ?? undefined;
}

function parametersOf(run: EventRun): RequestParameters {
  if (!run.parameters) throw new Error(`RequestMangler: the event ${run.event} has no parameters to change`);
  return run.parameters;
}

/** Sets the parameter; without a match there is nothing to do, which is no failure. */
function set(run: EventRun): void {
  const params = parametersOf(run);
  const { parameter = '', value = '', match_parameter: matchName, match_pattern: pattern } = run.options;
  if (!matchName) {
    params.set(parameter, value);
    return;
  }
  const text = params.get(matchName);
  const m = text === undefined ? undefined : matchAtStart(pattern ?? '', text);
  if (m) params.set(parameter, formatGroups(value, m.slice(1)));
}

export const requestManglerModule: EventHandlerModule = {
  name: 'RequestMangler',
  positions: ['post', 'pre'],
  actions: {
    delete: {
      parameter: { type: 'str', required: true, description: 'The parameter to delete.' },
    },
    set: {
      parameter: { type: 'str', required: true, description: 'The parameter to set (added when absent).' },
      value: {
        type: 'str',
        required: true,
        description: 'The new value; {0}, {1} … are the groups of match_pattern.',
      },
      match_parameter: { type: 'str', description: 'Set only when this parameter matches match_pattern.' },
      match_pattern: {
        type: 'str',
        description: 'A regular expression matched at the start of match_parameter.',
      },
      reset_user: {
        type: 'bool',
        description:
          'Accepted for privacyIDEA compatibility: endpoints always read the changed user and realm.',
      },
    },
  },
  async run(action, run) {
    if (action === 'delete') {
      const params = parametersOf(run);
      const name = run.options.parameter ?? '';
      params.delete(name);
      return true;
    }
    if (action === 'set') {
      set(run);
      return true;
    }
    throw new Error(`RequestMangler: unknown action ${action}`);
  },
};
