import { createHash } from 'node:crypto';
import {
  DomainError,
  KEY_LENGTH,
  RESOURCES,
  formatPermissions,
  grants,
  hashKey,
  isWellFormedKey,
  keyAllows,
  keyPrefix,
  mintApiKey,
  normalizePermissions,
  parsePermissions,
  randomBase62,
  redactKey,
} from '@lib/businesses';

describe('API key material', () => {
  it.each([
    ['secret', 'live', 'sk_live_'],
    ['secret', 'test', 'sk_test_'],
    ['publishable', 'live', 'pk_live_'],
    ['publishable', 'test', 'pk_test_'],
    ['restricted', 'live', 'rk_live_'],
    ['restricted', 'test', 'rk_test_'],
  ] as const)('mints %s %s keys as %s + 32 base62 characters, keeping only the hash and last 4', (kind, mode, prefix) => {
    const minted = mintApiKey(kind, mode);
    expect(keyPrefix(kind, mode)).toBe(prefix);
    expect(minted.secret).toHaveLength(40);
    expect(KEY_LENGTH).toBe(40);
    expect(minted.secret.startsWith(prefix)).toBe(true);
    expect(minted.secret.slice(8)).toMatch(/^[0-9A-Za-z]{32}$/);
    expect(minted).toEqual({
      secret: minted.secret,
      secret_hash: createHash('sha256').update(minted.secret).digest('hex'),
      prefix,
      last4: minted.secret.slice(-4),
    });
    expect(isWellFormedKey(minted.secret)).toBe(true);
    expect(mintApiKey(kind, mode).secret).not.toBe(minted.secret);
  });

  it('draws bytes from 248 up again instead of folding them (no modulo bias)', () => {
    // 248..255 would map to 0..7 under a plain modulo: they must be skipped
    const chunks = [Buffer.from([255, 248, 0, 61, 250]), Buffer.from([62, 247, 1, 2, 3, 4, 5])];
    let calls = 0;
    const random = (size: number) => {
      expect(size).toBeGreaterThan(0);
      return chunks[calls++] ?? Buffer.alloc(size);
    };
    expect(randomBase62(6, random)).toBe('0z0z12'); // 62 -> '0', 247 (the largest kept) -> 'z'
    expect(calls).toBe(2);
  });

  it('is uniform over the alphabet (chi-square over 620,000 characters)', () => {
    const text = randomBase62(620_000);
    const counts = new Map<string, number>();
    for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const expected = text.length / 62;
    const chi = [...counts.values()].reduce((sum, n) => sum + (n - expected) ** 2 / expected, 0);
    // 61 degrees of freedom: p = 0.0001 at about 110; a `% 62` bias over bytes gives thousands
    expect(chi).toBeLessThan(110);
  });

  it('recognizes only well-formed keys and redacts them as prefix…last4', () => {
    for (const bad of ['', 'sk_live_', 'sk_live_' + 'a'.repeat(31), 'sk_live_' + 'a'.repeat(33), 'xk_live_' + 'a'.repeat(32), 'sk_prod_' + 'a'.repeat(32), 'sk_live_' + 'a'.repeat(31) + '-']) {
      expect(isWellFormedKey(bad)).toBe(false);
    }
    expect(redactKey('sk_live_', 'a1b2')).toBe('sk_live_…a1b2');
    expect(hashKey('sk_test_x')).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('restricted key permissions', () => {
  it('parses the written form into grants in a stable order, and prints it back', () => {
    const parsed = parsePermissions(' webhooks:read , payments:write');
    expect(parsed).toEqual({ payments: 'write', webhooks: 'read' });
    expect(Object.keys(parsed)).toEqual(['payments', 'webhooks']);
    expect(formatPermissions(parsed)).toBe('payments:write,webhooks:read');
    expect(parsePermissions(formatPermissions(parsed))).toEqual(parsed);
    expect(parsePermissions('')).toEqual({});
    expect(parsePermissions('payments:read,payments:write,payments:read')).toEqual({ payments: 'write' });
    expect(Object.keys(parsePermissions(RESOURCES.map((r) => `${r}:read`).reverse().join(',')))).toEqual([...RESOURCES]);
  });

  it.each([
    ['refunds:write', /Unknown resource "refunds"/],
    ['payments:admin', /Unknown access "admin"/],
    ['payments', /not of the form resource:access/],
    ['payments:write,', /not of the form resource:access/],
    ['payments:write:now', /not of the form resource:access/],
    ['Payments:read', /Unknown resource "Payments"/],
  ])('refuses %j with a clear error', (text, message) => {
    expect(() => parsePermissions(text)).toThrow(message);
    try {
      parsePermissions(text);
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ code: 'invalid_request', field: 'permissions', status: 400 });
      expect((error as Error).message).toMatch(/read or write/);
    }
  });

  it('checks grants from outside (a JSON body)', () => {
    expect(normalizePermissions({ events: 'read' })).toEqual({ events: 'read' });
    // search is no resource of its own: a key searches the kinds it reads (spec §4 GET /search)
    expect(() => normalizePermissions({ search: 'read' })).toThrow(/Unknown resource "search"/);
    expect(() => normalizePermissions(['payments:read'])).toThrow(/must be an object/);
    expect(() => normalizePermissions(null)).toThrow(/must be an object/);
    expect(() => normalizePermissions({ payments: true })).toThrow(/Unknown access/);
  });

  it('write implies read; secret keys can do everything, publishable keys nothing', () => {
    const p = { payments: 'write', webhooks: 'read' } as const;
    expect(grants(p, 'payments', 'read')).toBe(true);
    expect(grants(p, 'payments', 'write')).toBe(true);
    expect(grants(p, 'webhooks', 'read')).toBe(true);
    expect(grants(p, 'webhooks', 'write')).toBe(false);
    expect(grants(p, 'wallet', 'read')).toBe(false);
    expect(grants(null, 'payments', 'read')).toBe(false);
    for (const resource of RESOURCES) {
      expect(keyAllows({ type: 'secret', permissions: null }, resource, 'write')).toBe(true);
      expect(keyAllows({ type: 'publishable', permissions: null }, resource, 'read')).toBe(false);
    }
    expect(keyAllows({ type: 'restricted', permissions: p }, 'payments', 'write')).toBe(true);
    expect(keyAllows({ type: 'restricted', permissions: p }, 'customers', 'read')).toBe(false);
  });
});
