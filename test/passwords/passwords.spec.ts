import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { hash as argon2Hash, Algorithm } from '@node-rs/argon2';
import {
  ARGON2_PARAMETERS,
  checkPasswordRules,
  isOverLong,
  isRepetition,
  OfflineBreachList,
  PASSWORD_RULE_MESSAGES,
  PasswordHasher,
  PasswordService,
  PwnedPasswordsChecker,
  sha1Hex,
} from '@lib/passwords';

const GOOD = 'tangerine-orbit-71';

describe('password rules', () => {
  it('accepts a long, varied password', () => {
    expect(checkPasswordRules(GOOD)).toEqual({ ok: true });
  });

  describe('length: 10 to 256 code points', () => {
    it.each([
      ['9 characters', 'abcdefgh1', false],
      ['10 characters', 'abcdefgh12', true],
      ['256 characters', 'x1y2'.repeat(63) + 'zw9q', true],
      ['257 characters', 'x1y2'.repeat(63) + 'zw9qr', false],
    ])('%s', (_, password, ok) => {
      const check = checkPasswordRules(password);
      expect(check.ok).toBe(ok);
      if (!check.ok) expect(check).toEqual({ ok: false, rule: 'length', message: PASSWORD_RULE_MESSAGES.length });
    });

    it('counts code points, not UTF-16 units: 9 emoji and a letter is 10', () => {
      const password = '😀😁😂🤣😃😄😅😆😉a';
      expect(password.length).toBe(19);
      expect(checkPasswordRules(password)).toEqual({ ok: true });
      expect(checkPasswordRules('😀😁😂🤣😃😄😅😆a').ok).toBe(false);
    });

    it('the message says which rule', () => {
      expect(PASSWORD_RULE_MESSAGES.length).toBe('Password must be 10 to 256 characters long.');
    });

    it('isOverLong: the upper bound alone, in code points after NFKC (judged while the request is validated; audit F3)', () => {
      expect(isOverLong('x1y2'.repeat(63) + 'zw9q')).toBe(false);
      expect(isOverLong('x1y2'.repeat(63) + 'zw9qr')).toBe(true);
      expect(isOverLong('short')).toBe(false); // too short is the policy's, not this
      expect(isOverLong('😀'.repeat(256))).toBe(false); // 512 UTF-16 units, 256 code points
      expect(isOverLong('😀'.repeat(257))).toBe(true);
      expect(isOverLong('\uFDFA'.repeat(15))).toBe(true); // 15 code points typed, 270 after NFKC
    });
  });

  describe('repetition', () => {
    it.each(['aaaaaaaaaaaa', 'abababababab', 'abcabcabcabc', 'ab1!ab1!ab1!', 'ééééééééééé'])('refuses %s', (password) => {
      expect(checkPasswordRules(password)).toMatchObject({ ok: false, rule: 'repetition' });
    });

    it('accepts a longer unit repeated and a repetition with a tail', () => {
      expect(isRepetition([...'abcdeabcde'])).toBe(false);
      expect(isRepetition([...'aaaaaaaaab'])).toBe(false);
      expect(checkPasswordRules('zqxjvzqxjv').ok).toBe(true);
    });
  });

  describe('no letters', () => {
    it.each(['8491-2207-5536', '!@#$%^&*()_+=', '٣٤٥٦٧٨٩٠١٢٣'])('refuses %s', (password) => {
      expect(checkPasswordRules(password)).toMatchObject({ ok: false, rule: 'no_letters' });
    });

    it('any script counts as letters', () => {
      expect(checkPasswordRules('пароль-8491-22').ok).toBe(true);
      expect(checkPasswordRules('密碼1234567890').ok).toBe(true);
    });
  });

  describe('too common (fxa-common-password-list)', () => {
    it.each(['password123', 'qwertyuiop', 'iloveyou12', 'QwertyUiop', 'PASSWORD123'])('refuses %s', (password) => {
      expect(checkPasswordRules(password)).toMatchObject({ ok: false, rule: 'too_common' });
    });
  });

  describe('contains the e-mail local part', () => {
    it('refuses the local part in any case', () => {
      expect(checkPasswordRules('MarieCurie-1867', { email: 'mariecurie@example.com' })).toMatchObject({ ok: false, rule: 'contains_email' });
    });

    it('ignores local parts shorter than 4 and passwords without it', () => {
      expect(checkPasswordRules('bob-tangerine-9', { email: 'bob@example.com' }).ok).toBe(true);
      expect(checkPasswordRules(GOOD, { email: 'mariecurie@example.com' }).ok).toBe(true);
    });
  });

  it('checks the rules in order: length before letters', () => {
    expect(checkPasswordRules('1234')).toMatchObject({ rule: 'length' });
  });
});

describe('password hashing (argon2id)', () => {
  const hasher = new PasswordHasher();

  it('writes the chosen parameters into a PHC string and verifies', async () => {
    expect(ARGON2_PARAMETERS).toEqual({ memoryCost: 19456, timeCost: 2, parallelism: 1 });
    const phc = await hasher.hash(GOOD);
    expect(phc).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(await hasher.verify(phc, GOOD)).toBe(true);
    expect(await hasher.verify(phc, `${GOOD}x`)).toBe(false);
    expect(hasher.needsRehash(phc)).toBe(false);
  });

  it('salts every hash', async () => {
    expect(await hasher.hash(GOOD)).not.toBe(await hasher.hash(GOOD));
  });

  it('verifies the NFKC form: composed and decomposed accents are the same password', async () => {
    const composed = 'caf\u00e9-tangerine';
    const decomposed = 'cafe\u0301-tangerine';
    const phc = await hasher.hash(composed);
    expect(await hasher.verify(phc, decomposed)).toBe(true);
  });

  it('needs a rehash for other parameters or algorithms, and an unreadable string', async () => {
    const weaker = await argon2Hash(GOOD, { memoryCost: 8192, timeCost: 1, parallelism: 1, algorithm: Algorithm.Argon2id });
    expect(await hasher.verify(weaker, GOOD)).toBe(true);
    expect(hasher.needsRehash(weaker)).toBe(true);
    const argon2i = await argon2Hash(GOOD, { ...ARGON2_PARAMETERS, algorithm: Algorithm.Argon2i });
    expect(hasher.needsRehash(argon2i)).toBe(true);
    expect(hasher.needsRehash('not a hash')).toBe(true);
    expect(await hasher.verify('not a hash', GOOD)).toBe(false);
  });

  it('a hasher with stronger parameters asks to rehash today\'s hashes', async () => {
    const phc = await hasher.hash(GOOD);
    expect(new PasswordHasher({ memoryCost: 47104, timeCost: 1, parallelism: 1 }).needsRehash(phc)).toBe(true);
  });
});

/** A local HTTP server standing in for api.pwnedpasswords.com (its range API contract). */
async function fakePwnedApi(known: Map<string, number>, behaviour: { status?: number; hang?: boolean } = {}) {
  const requests: { url: string; headers: IncomingHttpHeaders }[] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', headers: req.headers });
    if (behaviour.hang) return;
    if (behaviour.status) {
      res.writeHead(behaviour.status).end();
      return;
    }
    const prefix = (req.url ?? '').replace('/range/', '');
    const lines = [...known].filter(([digest]) => digest.startsWith(prefix)).map(([digest, count]) => `${digest.slice(5)}:${count}`);
    if (req.headers['add-padding'] === 'true') lines.push('0000000000000000000000000000000000A:0', `${sha1Hex('padded-password-x').slice(5)}:0`);
    res.writeHead(200, { 'content-type': 'text/plain' }).end(lines.join('\r\n'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

describe('breach check: Pwned Passwords range API (local stand-in)', () => {
  const breachedPassword = 'correct-horse-staple-9';

  it('sends only the first 5 hex characters of the SHA-1, with Add-Padding, and matches the suffix', async () => {
    const api = await fakePwnedApi(new Map([[sha1Hex(breachedPassword), 42]]));
    try {
      const checker = new PwnedPasswordsChecker({ baseUrl: api.url });
      expect(await checker.check(breachedPassword)).toBe('breached');
      expect(await checker.check(GOOD)).toBe('clean');
      expect(api.requests.map((r) => r.url)).toEqual([`/range/${sha1Hex(breachedPassword).slice(0, 5)}`, `/range/${sha1Hex(GOOD).slice(0, 5)}`]);
      expect(api.requests.every((r) => r.headers['add-padding'] === 'true')).toBe(true);
      const sent = JSON.stringify(api.requests);
      expect(sent).not.toContain(breachedPassword);
      expect(sent).not.toContain(sha1Hex(breachedPassword).slice(5));
    } finally {
      await api.close();
    }
  });

  it('a padded line (count 0) is not a breach', async () => {
    const api = await fakePwnedApi(new Map());
    try {
      expect(await new PwnedPasswordsChecker({ baseUrl: api.url }).check('padded-password-x')).toBe('clean');
    } finally {
      await api.close();
    }
  });

  it.each([
    ['an HTTP error', { status: 503 }],
    ['no answer within the timeout', { hang: true }],
  ])('%s is unknown, told without the password', async (_, behaviour) => {
    const api = await fakePwnedApi(new Map(), behaviour);
    const told: string[] = [];
    try {
      const checker = new PwnedPasswordsChecker({ baseUrl: api.url, timeoutMs: 200, onUnavailable: (reason) => told.push(reason) });
      expect(await checker.check(breachedPassword)).toBe('unknown');
      expect(told).toHaveLength(1);
      expect(told[0]).not.toContain(breachedPassword);
      expect(told[0]).not.toContain(sha1Hex(breachedPassword).slice(0, 5));
    } finally {
      await api.close();
    }
  });

  it('an address nothing listens on is unknown', async () => {
    const api = await fakePwnedApi(new Map());
    await api.close();
    const told: string[] = [];
    expect(await new PwnedPasswordsChecker({ baseUrl: api.url, onUnavailable: (r) => told.push(r) }).check(GOOD)).toBe('unknown');
    expect(told).toHaveLength(1);
  });
});

describe('PasswordService', () => {
  const breached = 'correct-horse-staple-9';

  it('refuses a breached password (offline list) after the local rules pass', async () => {
    const service = new PasswordService(new OfflineBreachList([breached]));
    expect(await service.check(breached)).toEqual({ ok: false, rule: 'breached', message: PASSWORD_RULE_MESSAGES.breached });
    expect(await service.check(GOOD)).toEqual({ ok: true });
    expect(await service.check('short')).toMatchObject({ rule: 'length' });
  });

  it('fails open when the breach source is unreachable', async () => {
    const service = new PasswordService({ check: async () => 'unknown' });
    expect(await service.check(GOOD)).toEqual({ ok: true });
  });

  it('the offline list also takes SHA-1 digests', async () => {
    expect(await new OfflineBreachList([], [sha1Hex(breached).toLowerCase()]).check(breached)).toBe('breached');
  });

  it('hashes and verifies', async () => {
    const service = new PasswordService(new OfflineBreachList());
    const phc = await service.hash(GOOD);
    expect(await service.verify(phc, GOOD)).toBe(true);
    expect(service.needsRehash(phc)).toBe(false);
  });
});
