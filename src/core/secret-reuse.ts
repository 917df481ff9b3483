// The rule for stored secrets (resolver passwords today; SMTP, RADIUS and SMS gateway secrets are
// meant to follow it): a stored secret is reused only for the destination it was stored for.
// A request that keeps a stored secret (sends it back as __CENSORED__, or does not send it) while
// changing a setting that decides where the secret goes or whose secret it is would make authsrv
// hand the secret to a server of the caller's choosing; such a request must give the secret again.
// Each kind of settings declares, next to each secret, which settings are its destination; the
// services apply this one rule.
import { ParameterError } from '../errors.ts';
import { isTrue } from '../is-true.ts';

/** What the rule needs of a setting's description (a structural subset of a resolver's SettingSpec). */
export interface ReusableSettingSpec {
  type: string;
  default?: string | undefined;
  /** For a secret: the settings that decide where it is sent or whose secret it is. */
  destination?: readonly string[];
}

export interface SecretReuse {
  /** The settings of the kind, by canonical name. */
  specs: Readonly<Record<string, ReusableSettingSpec>>;
  /** The settings as stored. */
  stored: Readonly<Record<string, string>>;
  /** The settings the request would use or store. */
  requested: Readonly<Record<string, string>>;
  /** The keys whose values are secrets (declared by the kind or marked so by an administrator). */
  secrets: ReadonlySet<string>;
  /** The keys the request gave a value of its own (not __CENSORED__). */
  given: ReadonlySet<string>;
}

/**
 * The settings that are the destination of a secret. A secret the kind does not declare (a setting
 * an administrator marked as a password) goes wherever the kind's declared secrets go.
 */
export function destinationOf(specs: SecretReuse['specs'], secret: string): readonly string[] {
  const declared = specs[secret]?.destination;
  if (declared) return declared;
  return [...new Set(Object.values(specs).flatMap((spec) => spec.destination ?? []))];
}

/** A setting's value as it takes effect: the default when unset, booleans and numbers normalised. */
function effectiveValue(specs: SecretReuse['specs'], settings: SecretReuse['stored'], key: string): string {
  const spec = specs[key];
  const value = settings[key] ?? spec?.default ?? '';
  if (value === '') return '';
  if (spec?.type === 'bool') return isTrue(value) ? 'True' : 'False';
  if (spec?.type === 'int' && /^\s*-?\d+\s*$/.test(value)) return String(Number(value));
  return value;
}

/** The stored secrets the request keeps instead of giving them again, the kind's declared ones first. */
function keptSecrets(r: SecretReuse): string[] {
  const declared = (key: string) => (r.specs[key]?.destination ? 0 : 1);
  return [...r.secrets]
    .filter((key) => {
      const stored = r.stored[key];
      return stored !== undefined && stored !== '' && !r.given.has(key) && r.requested[key] === stored;
    })
    .sort((a, b) => declared(a) - declared(b) || (a < b ? -1 : 1));
}

/** The settings of a secret's destination that the request changes. */
function changedDestination(r: SecretReuse, secret: string): string[] {
  return destinationOf(r.specs, secret).filter(
    (key) => effectiveValue(r.specs, r.stored, key) !== effectiveValue(r.specs, r.requested, key),
  );
}

function listed(names: string[]): string {
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/**
 * Throws a ParameterError naming the secrets that must be given again and the settings of their
 * destination that changed, when the request keeps a stored secret for another destination.
 */
export function checkSecretReuse(r: SecretReuse): void {
  const refused = keptSecrets(r)
    .map((secret) => ({ secret, changed: changedDestination(r, secret) }))
    .filter((c) => c.changed.length > 0);
  if (refused.length === 0) return;
  const changed = [...new Set(refused.flatMap((c) => c.changed))];
  throw new ParameterError(
    `${listed(refused.map((c) => c.secret))} must be given again: ${listed(changed)} ` +
      `${changed.length === 1 ? 'differs' : 'differ'} from the stored settings, and a stored secret is ` +
      'only used for the destination it was stored for',
  );
}
