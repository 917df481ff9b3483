// Changes of the JSON answer that event handlers (ResponseMangler) ask for after the endpoint
// answered: kept with the reply and applied to the success envelope as it is sent (and signed), so
// that they reach every member the client gets (`/result/value`, `/detail/message`, `/time` …).
import type { ResponseBody, ResponseValue } from '../core/event/index.ts';

export type ResponseEdit =
  | { op: 'delete'; path: readonly string[] }
  | { op: 'set'; path: readonly string[]; value: ResponseValue };

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Applies the edits in their order. A delete of a member that is not there changes nothing; a set
 * creates missing objects on its way but never replaces a value that is not an object (an array, a
 * text) by one.
 */
export function applyResponseEdits(envelope: Json, edits: readonly ResponseEdit[]): void {
  for (const edit of edits) {
    const keys = edit.path.slice(0, -1);
    const last = edit.path.at(-1);
    if (last === undefined) continue;
    let at: Json | undefined = envelope;
    for (const key of keys) {
      const next: unknown = Object.hasOwn(at, key) ? at[key] : undefined;
      if (isObject(next)) at = next;
      else if ((next === undefined || next === null) && edit.op === 'set') {
        const made: Json = {};
        at[key] = made;
        at = made;
      } else {
        at = undefined;
        break;
      }
    }
    if (!at) continue;
    if (edit.op === 'delete') delete at[last];
    // A key like __proto__ is an own member, never the object's prototype.
    else
      Object.defineProperty(at, last, {
        value: edit.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
}

/** The ResponseBody the event handlers get for a reply, handing each edit to `add`. */
export function responseBody(add: (edit: ResponseEdit) => void): ResponseBody {
  return {
    delete: (path) => add({ op: 'delete', path: [...path] }),
    set: (path, value) => add({ op: 'set', path: [...path], value }),
  };
}
