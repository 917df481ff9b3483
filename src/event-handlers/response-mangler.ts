// ResponseMangler: deletes or sets a member of the JSON answer the client gets (reference 7.1
// "ResponseMangler"), named by a JSON pointer of one to three levels (`/detail/message`). `set`
// converts the value to the given type: string, integer or bool (privacyIDEA's is_true).
import { isTrue } from '../is-true.ts';
import type { EventHandlerModule, EventRun, ResponseBody, ResponseValue } from './module.ts';

const MAX_LEVELS = 3;
const TYPES = ['string', 'integer', 'bool'] as const;

/** `/detail/message` → ['detail', 'message'] (with `~1` = `/`, `~0` = `~`); else an error. */
export function pointerPath(pointer: string): string[] {
  const parts = pointer.split('/');
  if (parts[0] !== '' || parts.length < 2 || parts.length > MAX_LEVELS + 1 || parts.slice(1).includes('')) {
    throw new Error(
      `ResponseMangler: the JSON pointer '${pointer}' must name 1 to ${MAX_LEVELS} keys, like /detail/message`,
    );
  }
  return parts.slice(1).map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** The value as its type says. */
export function typedValue(type: string | undefined, value: string): ResponseValue {
  if (type === 'integer') {
    if (!/^\s*[+-]?\d+\s*$/.test(value)) throw new Error(`ResponseMangler: '${value}' is not an integer`);
    return Number.parseInt(value, 10);
  }
  if (type === 'bool') return isTrue(value);
  if (type === 'string') return value;
  throw new Error(`ResponseMangler: unknown type ${type}`);
}

function responseOf(run: EventRun): ResponseBody {
  if (!run.response) throw new Error(`ResponseMangler: the event ${run.event} has no JSON answer to change`);
  return run.response;
}

export const responseManglerModule: EventHandlerModule = {
  name: 'ResponseMangler',
  positions: ['post'],
  actions: {
    delete: {
      'JSON pointer': {
        type: 'str',
        required: true,
        description: 'The member to delete, like /detail/message (1 to 3 levels).',
      },
    },
    set: {
      'JSON pointer': {
        type: 'str',
        required: true,
        description: 'The member to set, like /detail/message (1 to 3 levels).',
      },
      type: { type: 'str', required: true, description: 'The type of the value.', value: TYPES },
      value: { type: 'str', required: true, description: 'The value.' },
    },
  },
  async run(action, run) {
    const path = pointerPath(run.options['JSON pointer'] ?? '');
    if (action === 'delete') responseOf(run).delete(path);
    else if (action === 'set')
      responseOf(run).set(path, typedValue(run.options.type, run.options.value ?? ''));
    else throw new Error(`ResponseMangler: unknown action ${action}`);
    return true;
  },
};
