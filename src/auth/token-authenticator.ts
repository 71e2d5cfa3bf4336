// Bearer tokens: kube-apiserver's --token-auth-file CSV (`token,user,uid,"g1,g2"`) and the
// generated admin token. Unknown tokens are an authentication error (401), as upstream. Tokens
// are looked up by their SHA-256 (one hash and one map lookup per request, whatever the file's
// size), so the lookup's timing says nothing about how much of a guess matched a real token.

import { readFileSync } from 'node:fs';
import type { UserInfo } from '../apimachinery/request-context.js';
import type { Authenticator, AuthRequest, AuthResult } from './authenticator.js';
import { tokenDigest } from './verified-token-cache.js';

export class TokenFileError extends Error {
  override name = 'TokenFileError';
}

/** Splits one CSV record, honouring double quotes (and "" inside them). */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        current += '"';
        i++;
      } else if (c === '"') quoted = false;
      else current += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      fields.push(current);
      current = '';
    } else current += c;
  }
  if (quoted) throw new TokenFileError('unterminated quoted field');
  fields.push(current);
  return fields;
}

export function parseTokenFile(text: string, source = 'token file'): Map<string, UserInfo> {
  const users = new Map<string, UserInfo>();
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '' || line.trimStart().startsWith('#')) return;
    let fields: string[];
    try {
      fields = csvFields(line);
    } catch (err) {
      throw new TokenFileError(`${source} line ${i + 1}: ${(err as Error).message}`);
    }
    if (fields.length < 3) throw new TokenFileError(`${source} line ${i + 1}: expected at least 3 columns (token,user,uid), found ${fields.length}`);
    const [token, username, uid, groups] = fields.map((f) => f.trim()) as [string, string, string, string | undefined];
    if (!token) return; // upstream skips records with an empty token
    const user: UserInfo = { username, uid, groups: groups ? groups.split(',').map((g) => g.trim()).filter(Boolean) : [] };
    users.set(token, user);
  });
  return users;
}

export function loadTokenFile(path: string): Map<string, UserInfo> {
  return parseTokenFile(readFileSync(path, 'utf8'), path);
}

function bearerToken(req: AuthRequest): string | undefined {
  const h = req.headers.authorization;
  const value = Array.isArray(h) ? h[0] : h;
  // Stryker disable next-line StringLiteral: equivalent, no header is matched against a text that cannot start with Bearer whatever it says
  const m = /^Bearer\s+(\S+)\s*$/i.exec(value ?? '');
  return m?.[1];
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
