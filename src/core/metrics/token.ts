// The bearer token of /metrics (metrics.token_file): read once at start like the key password,
// compared in constant time, never logged or shown.
import { createHash, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../../config/index.ts';
import { readRegularFile } from '../../files/index.ts';

/** A token file holds one line; anything much longer is not one. */
const MAX_TOKEN_FILE_BYTES = 64 * 1024;
/** Shorter tokens are guessable; 16 characters of a random base64 or hex text are not. */
const MIN_TOKEN_LENGTH = 16;

/** The token: the first line of metrics.token_file, at least 16 characters. */
export function readMetricsToken(file: string): string {
  let text: string;
  try {
    text = readRegularFile(file, 'metrics.token_file', MAX_TOKEN_FILE_BYTES).toString('utf8');
  } catch (e) {
    throw new ConfigError((e as Error).message); // it names the setting, the file and what is wrong
  }
  const token = (text.split(/\r?\n/)[0] ?? '').trim();
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new ConfigError(
      `metrics.token_file ${file} must hold a token of at least ${MIN_TOKEN_LENGTH} characters on its first line`,
    );
  }
  return token;
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * Whether an Authorization header carries the token as `Bearer <token>`. Both sides are hashed
 * first, so that the comparison takes the same time whatever the length of the guess.
 */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const m = /^Bearer[ ]+(\S+)[ ]*$/i.exec(authorization ?? '');
  return m !== null && timingSafeEqual(digest(m[1] ?? ''), digest(token));
}
