// SCIM attribute paths, as the Mapping setting names them, and the values they pick from a resource.
//   path      = [schema-urn ":"] step *("." step)     e.g. name.givenName, emails[type=work].value
//   step      = attribute-name ["[" selector "]"]       attribute names are case-insensitive
//   selector  = "primary"             the element of a multi-valued attribute with primary=true
//             / index                 the element at this 0-based position
//             / sub-attribute "=" v   the element whose sub-attribute equals v (case-insensitive;
//                                     v may be quoted with "…" or '…', cannot contain "]")
// A multi-valued attribute reached without a selector yields its primary element, else its first:
// `emails.value` is the primary e-mail or the only/first one. A path may start with an extension
// schema URN: `urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber`. Values
// that are not strings, numbers or booleans (objects, arrays) map to nothing.

type Selector =
  | { kind: 'primary' }
  | { kind: 'index'; index: number }
  | { kind: 'equals'; key: string; value: string };

interface Step {
  name: string;
  selector: Selector | undefined;
}

export interface ScimPath {
  schema: string | undefined;
  steps: Step[];
  /** The path as a SCIM filter attrPath (selectors dropped), or undefined when SCIM cannot express it. */
  filterAttr: string | undefined;
}

const NAME = '[A-Za-z$][A-Za-z0-9_$-]*';
const STEP = new RegExp(`^(${NAME})(?:\\[([^\\]]*)\\])?`);
const SELECTOR_EQUALS = new RegExp(`^(${NAME})\\s*=\\s*(.*)$`);

function parseSelector(text: string): Selector {
  const s = text.trim();
  if (s.toLowerCase() === 'primary') return { kind: 'primary' };
  if (/^\d+$/.test(s)) return { kind: 'index', index: Number(s) };
  const m = SELECTOR_EQUALS.exec(s);
  if (!m)
    throw new Error(`invalid selector [${text}]: use [primary], [<index>] or [<sub-attribute>=<value>]`);
  const raw = m[2]!.trim();
  const quoted = /^"(.*)"$/.exec(raw) ?? /^'(.*)'$/.exec(raw);
  return { kind: 'equals', key: m[1]!, value: quoted ? quoted[1]! : raw };
}

export function parseScimPath(text: string): ScimPath {
  let rest = text.trim();
  let schema: string | undefined;
  if (/^urn:/i.test(rest)) {
    // The attribute starts after the last colon that precedes any selector.
    const bracket = rest.indexOf('[');
    const colon = (bracket < 0 ? rest : rest.slice(0, bracket)).lastIndexOf(':');
    schema = rest.slice(0, colon);
    rest = rest.slice(colon + 1);
    if (schema.split(':').length < 3) throw new Error(`'${text}' has an invalid schema URN`);
  }
  const steps: Step[] = [];
  for (;;) {
    const m = STEP.exec(rest);
    if (!m) throw new Error(`'${text}' is not a SCIM attribute path`);
    steps.push({ name: m[1]!, selector: m[2] === undefined ? undefined : parseSelector(m[2]) });
    rest = rest.slice(m[0].length);
    if (rest === '') break;
    if (rest[0] !== '.') throw new Error(`'${text}' is not a SCIM attribute path`);
    rest = rest.slice(1);
  }
  const names = steps.map((st) => st.name).join('.');
  return {
    schema,
    steps,
    filterAttr: steps.length <= 2 ? (schema ? `${schema}:${names}` : names) : undefined,
  };
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** An attribute by name, case-insensitively (RFC 7643 §2.1). */
export function attribute(obj: unknown, name: string): unknown {
  if (!isObject(obj)) return undefined;
  if (Object.hasOwn(obj, name)) return obj[name];
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(obj)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

function select(value: unknown, selector: Selector | undefined): unknown {
  const elements = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  if (selector === undefined) {
    if (!Array.isArray(value)) return value;
    return elements.find((e) => attribute(e, 'primary') === true) ?? elements[0];
  }
  switch (selector.kind) {
    case 'primary':
      return elements.find((e) => attribute(e, 'primary') === true);
    case 'index':
      return elements[selector.index];
    case 'equals':
      return elements.find((e) => {
        const v = attribute(e, selector.key);
        return (
          (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') &&
          String(v).toLowerCase() === selector.value.toLowerCase()
        );
      });
  }
}

export function valueAt(resource: unknown, path: ScimPath): string | undefined {
  let current: unknown = path.schema === undefined ? resource : attribute(resource, path.schema);
  for (const step of path.steps) {
    current = select(attribute(current, step.name), step.selector);
    if (current === undefined || current === null) return undefined;
  }
  if (Array.isArray(current)) current = select(current, undefined);
  if (typeof current === 'string') return current;
  if (typeof current === 'number' || typeof current === 'boolean') return String(current);
  return undefined;
}
