// The `action` attribute of a policy: written as text (`tokenlist, otppin=userstore, -delete`,
// `\,` escapes a comma inside a value) and handled as a dict (name → true | "value"), the form
// privacyIDEA stores and returns (reference 5.1). Keys keep a leading `!`/`-`: they are exclusions
// for action matching (`*, -delete`), not "false".

import { ParameterError } from '../errors.ts';
import { isTrue } from '../is-true.ts';
import { isScope, type PolicyDefinitions, type Scope } from './definitions.ts';

export type ActionValue = string | true;
export type ActionDict = Record<string, ActionValue>;

/** Splits at commas not preceded by a backslash; `\,` becomes `,`. No validation. */
export function parseActionText(text: string): ActionDict {
  // Collected as pairs: fromEntries makes every name an own key, `__proto__` too (an assignment
  // would set the prototype and lose the name, which the validation would then never see).
  const out: [string, ActionValue][] = [];
  for (const raw of text.split(/(?<!\\),/)) {
    const item = raw.trim();
    if (!item) continue;
    const eq = item.indexOf('=');
    if (eq < 0) {
      out.push([item.replaceAll('\\,', ','), true]);
    } else {
      const key = item.slice(0, eq).trim();
      if (!key) throw new ParameterError(`Invalid action '${item}': missing name before '='`);
      out.push([
        key,
        item
          .slice(eq + 1)
          .trim()
          .replaceAll('\\,', ','),
      ]);
    }
  }
  return Object.fromEntries(out);
}

/** The text form of an action dict (inverse of parseActionText). */
export function formatActionText(dict: Readonly<ActionDict>): string {
  return Object.entries(dict)
    .map(([k, v]) => (v === true ? k : `${k}=${v.replaceAll(',', '\\,')}`))
    .join(', ');
}

function strip(key: string): { name: string; negated: boolean } {
  const negated = key.startsWith('!') || key.startsWith('-');
  return { name: negated ? key.slice(1) : key, negated };
}

function describeValues(values: readonly string[]): string {
  return values.map((v) => `'${v}'`).join(', ');
}

/**
 * Validates a parsed action dict against the definitions of the scope and normalises it: boolean
 * actions written `name=true` become `true`. Unknown actions (after stripping `!`/`-`, `*` allowed)
 * → ParameterError 905 `Invalid actions [...]!`; a value of the wrong type → ParameterError 905.
 */
export function validateActions(
  scope: string,
  dict: Readonly<ActionDict>,
  defs: PolicyDefinitions,
): ActionDict {
  if (!isScope(scope)) throw new ParameterError(`Invalid scope '${scope}'`);
  const unknown: string[] = [];
  const out: ActionDict = {};
  for (const [key, value] of Object.entries(dict)) {
    const { name, negated } = strip(key);
    if (name === '*') {
      if (value !== true) throw new ParameterError(`Action '*' takes no value`);
      out[key] = true;
      continue;
    }
    const def = defs.actionDef(scope, name);
    if (!def) {
      unknown.push(name);
      continue;
    }
    if (negated) {
      if (value !== true) throw new ParameterError(`Excluded action '${key}' takes no value`);
      out[key] = true;
      continue;
    }
    out[key] = checkValue(scope, name, def.type, def.values, value);
  }
  if (unknown.length) {
    throw new ParameterError(
      `Invalid actions [${unknown.map((u) => `'${u}'`).join(', ')}]! They are not defined in scope '${scope}'.`,
    );
  }
  return out;
}

function checkValue(
  scope: Scope,
  name: string,
  type: string,
  allowed: readonly string[] | undefined,
  value: ActionValue,
): ActionValue {
  switch (type) {
    case 'bool':
      if (isTrue(value)) return true;
      throw new ParameterError(
        `Action '${name}' of scope '${scope}' is a boolean: give it without a value (remove it to switch it off)`,
      );
    case 'int':
      if (value !== true && /^[+-]?\d+$/.test(value)) return value;
      throw new ParameterError(`Action '${name}' of scope '${scope}' needs an integer value, e.g. ${name}=5`);
    default:
      if (value === true || value === '') {
        throw new ParameterError(`Action '${name}' of scope '${scope}' needs a value, e.g. ${name}=<value>`);
      }
      if (allowed && !allowed.includes(value)) {
        throw new ParameterError(
          `Invalid value '${value}' for action '${name}' of scope '${scope}': allowed are ${describeValues(allowed)}`,
        );
      }
      return value;
  }
}

/**
 * The action attribute as the API receives it (text, or a JSON object as privacyIDEA's own clients
 * sometimes send), parsed and validated for the scope.
 */
export function parseActions(
  scope: string,
  action: string | Readonly<Record<string, unknown>>,
  defs: PolicyDefinitions,
): ActionDict {
  let dict: ActionDict;
  if (typeof action === 'string') {
    dict = parseActionText(action);
  } else {
    // Pairs, as in parseActionText: a key `__proto__` stays a key.
    const pairs: [string, ActionValue][] = [];
    for (const [k, v] of Object.entries(action)) {
      if (v === true) pairs.push([k, true]);
      else if (typeof v === 'string' || typeof v === 'number') pairs.push([k, String(v)]);
      else if (v === false)
        throw new ParameterError(`Action '${k}': false is not a value; leave the action out`);
      else throw new ParameterError(`Action '${k}' has an invalid value`);
    }
    dict = Object.fromEntries(pairs);
  }
  return validateActions(scope, dict, defs);
}
