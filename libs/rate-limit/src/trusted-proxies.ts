import ipaddr from 'ipaddr.js';

/** Named ranges that proxy-addr (and so Fastify's `trustProxy`) expands itself. */
export const TRUSTED_PROXY_KEYWORDS = ['loopback', 'linklocal', 'uniquelocal'] as const;

const KEYWORDS: ReadonlySet<string> = new Set(TRUSTED_PROXY_KEYWORDS);
const PREFIX_LENGTH = /^\d{1,3}$/;

/** A plain address in the usual notation: four-part decimal IPv4 (no "127.1", no octal), or IPv6. */
function addressKind(text: string): 'ipv4' | 'ipv6' | null {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return 'ipv4';
  // Zone IDs (fe80::1%eth0) name an interface of one host; they have no place in this list.
  if (!text.includes('%') && ipaddr.IPv6.isValid(text)) return 'ipv6';
  return null;
}

function validateEntry(entry: string): string | null {
  const lower = entry.toLowerCase();
  if (KEYWORDS.has(lower)) return lower;

  const slash = entry.indexOf('/');
  if (slash === -1) return addressKind(entry) ? entry : null;

  const kind = addressKind(entry.slice(0, slash));
  const prefix = entry.slice(slash + 1);
  if (!kind || !PREFIX_LENGTH.test(prefix)) return null;
  const bits = Number(prefix);
  // /0 would trust every address (anyone could forge X-Forwarded-For); proxy-addr refuses it too.
  if (bits < 1 || bits > (kind === 'ipv4' ? 32 : 128)) return null;
  return ipaddr.isValidCIDR(entry) ? entry : null;
}

/**
 * Parses the TRUSTED_PROXIES environment variable into the list for Fastify's `trustProxy`.
 *
 * The value is a comma-separated list of IPv4/IPv6 addresses, CIDR ranges (address/prefix
 * length) and the keywords 'loopback', 'linklocal', 'uniquelocal'. Forwarded headers
 * (X-Forwarded-For) are believed only from these addresses, so the per-IP rate limits count
 * the real client and not the load balancer, and a client cannot pick its own IP.
 *
 * Unset or blank → [] (trust nobody: the socket's peer address is the client's address).
 * Any invalid entry throws an Error naming it, so a typo stops start-up instead of silently
 * trusting nobody (all clients sharing the proxy's budget) or the wrong hosts.
 */
export function parseTrustedProxies(value: string | undefined): string[] {
  if (value === undefined || value.trim() === '') return [];
  const result: string[] = [];
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (entry === '') throw new Error(`TRUSTED_PROXIES has an empty entry: "${value}"`);
    const valid = validateEntry(entry);
    if (valid === null) {
      throw new Error(
        `TRUSTED_PROXIES entry "${entry}" is not an IPv4/IPv6 address, a CIDR range or one of ` +
          `${TRUSTED_PROXY_KEYWORDS.join(', ')}`,
      );
    }
    if (!result.includes(valid)) result.push(valid);
  }
  return result;
}
