// Request parameters as privacyIDEA merges them (reference 0.3): query string and form fields,
// then a JSON body, then path variables; query/form values and path variables are percent-decoded
// a second time unless the client is one of the privacyIDEA plugins that already send them raw.
import type { IncomingMessage } from 'node:http';
import { ParameterError, RequestBodyError } from '../errors.ts';
import { isTrue } from '../is-true.ts';
import { parseMultipart, type UploadedFile } from './multipart.ts';
import { checkJsonDepth, formPairCount, ParameterBudget } from './request-limits.ts';
import { pythonUnquote } from './unquote.ts';

export type ParamValue = string | number | boolean | null | ParamValue[] | { [k: string]: ParamValue };

export class Params {
  readonly values: Record<string, ParamValue>;
  /** Uploaded files of a multipart body, by field name. */
  readonly files: Record<string, UploadedFile>;

  constructor(values: Record<string, ParamValue>, files: Record<string, UploadedFile> = {}) {
    // Without a prototype, names such as "__proto__", "toString" or "constructor" are ordinary
    // parameter names: never inherited values, never a way to change the object's prototype.
    this.values = Object.assign(Object.create(null) as Record<string, ParamValue>, values);
    this.files = Object.assign(Object.create(null) as Record<string, UploadedFile>, files);
  }

  private get(name: string): ParamValue | undefined {
    return Object.hasOwn(this.values, name) ? this.values[name] : undefined;
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  /** A parameter as text; JSON numbers and booleans are turned into their text form. */
  str(name: string): string | undefined {
    const v = this.get(name);
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    throw new ParameterError(`Parameter '${name}' must be a string`);
  }

  /** A parameter as text, an empty one as absent (privacyIDEA's `getParam(…) or None`). */
  nonEmpty(name: string): string | undefined {
    return this.str(name) || undefined;
  }

  required(name: string): string {
    const v = this.str(name);
    if (v === undefined) throw ParameterError.missing(name);
    return v;
  }

  /** privacyIDEA's is_true: 1, "1", true, "True", "true", "TRUE". */
  bool(name: string): boolean {
    const v = this.get(name);
    return isTrue(v);
  }

  /**
   * Every parameter as text, never failing: a one-element list is its element, other lists and
   * objects their JSON text. For policy checks, which must not reject what the handler accepts.
   */
  texts(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, v] of Object.entries(this.values)) {
      if (v === null) continue;
      const one = Array.isArray(v) && v.length === 1 ? v[0] : v;
      out[name] = typeof one === 'string' ? one : JSON.stringify(one);
    }
    return out;
  }

  /** Every parameter as text, for handlers that take generic key=value pairs. */
  strings(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of Object.keys(this.values)) {
      const v = this.str(name);
      if (v !== undefined) out[name] = v;
    }
    return out;
  }
}

const RAW_AGENTS = new Set(['privacyidea-cp', 'privacyidea-ldap-proxy', 'simplesamlphp']);

/** The product name of a User-Agent: its first token, up to the '/' before the version. */
export function userAgentProduct(userAgent: string | undefined): string {
  return (userAgent ?? '').trim().split(/[\s/]/)[0]!;
}

export function needsSecondUnquote(userAgent: string | undefined): boolean {
  return !RAW_AGENTS.has(userAgentProduct(userAgent).toLowerCase());
}

/** Reads the body, refusing more than `limit` bytes without buffering them. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw RequestBodyError.tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > limit) throw RequestBodyError.tooLarge(limit);
      chunks.push(chunk as Buffer);
    }
  } catch (e) {
    if (e instanceof RequestBodyError) throw e;
    // The client went away or sent a broken transfer encoding: its fault, not an internal error.
    throw RequestBodyError.malformed('The request body could not be read');
  }
  return Buffer.concat(chunks);
}

export interface RawRequest {
  search: string;
  contentType: string | undefined;
  userAgent: string | undefined;
  body: Buffer;
}

export async function parseParams(raw: RawRequest): Promise<Params> {
  const unquote = needsSecondUnquote(raw.userAgent) ? pythonUnquote : (s: string) => s;
  const values: Record<string, ParamValue> = Object.create(null);
  const files: Record<string, UploadedFile> = Object.create(null);
  const addForm = (key: string, value: string) => {
    // Like werkzeug's to_dict(): the first value of a repeated key wins.
    if (!(key in values)) values[key] = unquote(value);
  };
  const budget = new ParameterBudget();
  for (const [k, v] of formPairs(raw.search, budget)) addForm(k, v);

  const type = (raw.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (raw.body.length > 0) {
    if (type === 'application/json' || type.endsWith('+json')) {
      Object.assign(values, parseJsonObject(raw.body, true, budget));
    } else if (type === 'application/x-www-form-urlencoded') {
      for (const [k, v] of formPairs(raw.body.toString('utf8'), budget)) addForm(k, v);
    } else if (type === 'multipart/form-data') {
      const form = await parseMultipart(raw.body, raw.contentType!, budget.left);
      for (const [k, v] of form.fields) addForm(k, v);
      for (const [k, file] of form.files) if (!(k in files)) files[k] = file;
    } else {
      // privacyIDEA also takes the keys of an undeclared body that happens to be a JSON object.
      Object.assign(values, parseJsonObject(raw.body, false, budget));
    }
  }
  return new Params(values, files);
}

/** A query string or urlencoded body, its pairs counted before it is parsed. */
function formPairs(text: string, budget: ParameterBudget): URLSearchParams {
  budget.spend(formPairCount(text, budget.left));
  return new URLSearchParams(text);
}

/** A JSON body's object; a declared one that is not an object is refused, an undeclared one ignored. */
function parseJsonObject(
  body: Buffer,
  declared: boolean,
  budget: ParameterBudget,
): Record<string, ParamValue> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    if (declared) throw RequestBodyError.malformed('The request body is not valid JSON');
    return {};
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    if (declared) throw RequestBodyError.malformed('The JSON request body must be an object');
    return {};
  }
  budget.spend(Object.keys(parsed).length);
  checkJsonDepth(parsed);
  return parsed as Record<string, ParamValue>;
}

/** Path variables win over every other source and are unquoted like form values. */
export function withPathParams(
  p: Params,
  path: Record<string, string>,
  userAgent: string | undefined,
): Params {
  const unquote = needsSecondUnquote(userAgent) ? pythonUnquote : (s: string) => s;
  const values: Record<string, ParamValue> = Object.assign(Object.create(null), p.values);
  for (const [k, v] of Object.entries(path)) values[k] = unquote(v);
  return new Params(values, p.files);
}
