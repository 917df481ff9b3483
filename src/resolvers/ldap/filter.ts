// LDAP search filters (RFC 4515). Every value that comes from a request (a login name, a user id,
// a search value) is escaped by ldapts' Filter.escape, so nothing in it can end the assertion or
// act as a wildcard; search values keep `*` as their wildcard. Attribute names come only from the
// checked settings (config.ts), never from a request.
//
// LDAPSEARCHFILTER is privacyIDEA's sequence of filters that are AND-ed with the lookup, e.g.
// `(uid=*)(objectClass=inetOrgPerson)`. The legacy LDAPFILTER (`(&(uid=%s)(objectClass=…))`) is
// used, with %s as `*`, only when LDAPSEARCHFILTER is empty.
import { Filter, FilterParser } from 'ldapts';
import { ParameterError } from '../../errors.ts';
import { guidBytes, isGuid } from './guid.ts';

/** `(attribute=value)` for an exact value; a GUID attribute compares the GUID's bytes. */
export function equalityFilter(attribute: string, value: string): string | undefined {
  const assertion = isGuid(attribute) ? guidBytes(value) : value;
  return assertion === undefined ? undefined : `(${attribute}=${Filter.escape(assertion)})`;
}

/** `(attribute=pattern)` for a search value: `*` stays a wildcard, everything else is literal. */
export function wildcardFilter(attribute: string, pattern: string): string | undefined {
  if (isGuid(attribute)) return pattern === '*' ? `(${attribute}=*)` : equalityFilter(attribute, pattern);
  const literal = pattern
    .replace(/\*+/g, '*')
    .split('*')
    .map((part) => Filter.escape(part));
  return `(${attribute}=${literal.join('*')})`;
}

/** `(attribute=*value*)`: entries whose attribute contains the value, every character literal. */
export function substringFilter(attribute: string, value: string): string {
  return `(${attribute}=*${Filter.escape(value)}*)`;
}

/** The configured filter sequence AND-ed with further terms. */
export function andFilter(searchFilter: string, ...terms: string[]): string {
  return `(&${searchFilter}${terms.join('')})`;
}

/** Any of the terms: one alone, or an OR of several. */
export function orFilter(terms: readonly string[]): string {
  return terms.length === 1 ? terms[0]! : `(|${terms.join('')})`;
}

/** LDAPSEARCHFILTER (or LDAPFILTER), checked: what the server would refuse is refused on saving. */
export function configuredSearchFilter(
  searchFilter: string,
  legacyFilter: string,
  primaryLogin: string,
): string {
  let filter = searchFilter.trim();
  if (filter === '') {
    const legacy = legacyFilter.trim();
    filter = legacy !== '' ? legacy.replaceAll('%s', '*') : `(${primaryLogin}=*)`;
  }
  return checkedSearchFilter(filter, 'LDAPSEARCHFILTER');
}

/** A filter sequence of the setting `setting`, in parentheses, that the server would accept. */
export function checkedSearchFilter(text: string, setting: string): string {
  let filter = text.trim();
  if (!filter.startsWith('(')) filter = `(${filter})`;
  try {
    if (!balanced(filter)) throw new Error('unbalanced parentheses');
    FilterParser.parseString(andFilter(filter));
  } catch (e) {
    throw new ParameterError(`${setting} '${filter}' is not a valid LDAP filter: ${(e as Error).message}`);
  }
  return filter;
}

/** ldapts' parser forgives a missing closing parenthesis; the server would not. */
function balanced(filter: string): boolean {
  let depth = 0;
  for (let i = 0; i < filter.length && depth >= 0; i++) {
    if (filter[i] === '\\') i++;
    else if (filter[i] === '(') depth++;
    else if (filter[i] === ')') depth--;
  }
  return depth === 0 && filter.endsWith(')');
}
