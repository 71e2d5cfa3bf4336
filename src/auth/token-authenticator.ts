// Bearer tokens: kube-apiserver's --token-auth-file CSV (`token,user,uid,"g1,g2"`) and the
// generated admin token. Unknown tokens are an authentication error (401), as upstream. Tokens
// are looked up by their SHA-256 (one hash and one map lookup per request, whatever the file's
// size), so the lookup's timing says nothing about how much of a guess matched a real token.

import { readFileSync } from 'node:fs';
import type { UserInfo } from '../apimachinery/request-context.js';
import type { Authenticator, AuthRequest, AuthResult } from './authenticator.js';
import { bearerToken } from './bearer-token.js';
import { readCsvRecords } from './go-csv.js';
import { tokenDigest } from './verified-token-cache.js';

export class TokenFileError extends Error {
  override name = 'TokenFileError';
}

/** Bytes held one per character (latin1) read back as the UTF-8 text they are. */
const utf8 = (bytes: string): string => Buffer.from(bytes, 'latin1').toString('utf8');

/**
 * The users of a token file, by token, read as kube's tokenfile.NewCSV reads it: Go's CSV records
 * (go-csv.ts: no comments, nothing trimmed), at least token, user name and uid; a record with an
 * empty token skipped; a later record of the same token wins; a fourth field split on every comma
 * into groups (so an empty one is the group ""). `content` is the file's bytes, or text.
 *
 * Tokens stay as their bytes, one per character, as Node hands over an HTTP/1.1 header's value; the
 * names are the UTF-8 they spell.
 */
export function parseTokenFile(content: Buffer | string, source = 'tokens.csv'): Map<string, UserInfo> {
  const bytes = (typeof content === 'string' ? Buffer.from(content, 'utf8') : content).toString('latin1');
  let records: string[][];
  try {
    records = readCsvRecords(bytes);
  } catch (err) {
    throw new TokenFileError((err as Error).message);
  }
  const users = new Map<string, UserInfo>();
  for (const fields of records) {
    if (fields.length < 3) throw new TokenFileError(`token file '${source}' must have at least 3 columns (token, user name, user uid), found ${fields.length}`);
    const [token, username, uid, groups] = fields as [string, string, string, string | undefined];
    if (token === '') continue;
    users.set(token, { username: utf8(username), uid: utf8(uid), groups: groups === undefined ? [] : utf8(groups).split(',') });
  }
  return users;
}

export function loadTokenFile(path: string): Map<string, UserInfo> {
  return parseTokenFile(readFileSync(path), path);
}

export class TokenAuthenticator implements Authenticator {
  private readonly byDigest: ReadonlyMap<string, UserInfo>;

  constructor(tokens: ReadonlyMap<string, UserInfo>) {
    this.byDigest = new Map([...tokens].map(([token, user]) => [tokenDigest(token), user]));
  }

  async authenticate(req: AuthRequest): Promise<AuthResult> {
    const token = bearerToken(req);
    if (token === undefined) return { kind: 'none' };
    const user = this.byDigest.get(tokenDigest(token));
    return user ? { kind: 'user', user: { ...user, groups: [...user.groups] } } : { kind: 'none' };
  }
}
