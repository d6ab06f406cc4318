import ipaddr from 'ipaddr.js';

/**
 * Where webhook deliveries may go: the SSRF rules (spec §4, issue 5 point 6). The same rules run
 * twice: when an endpoint is created or patched (400 invalid_request, field `url`), and again on
 * every delivery attempt, on every address the host name resolves to (see http-sender.ts), so an endpoint whose
 * DNS later points inside our network (DNS rebinding) is refused at connect time.
 *
 * Always refused: anything but https (http with allowPrivate), more than 2048 characters, user
 * info, fragments, and addresses that are unspecified, link-local (cloud metadata lives there),
 * multicast, broadcast, reserved, documentation, benchmarking or transition ranges (6to4, Teredo,
 * NAT64, IPv4-compatible).
 * Refused unless the operator set WEBHOOK_ALLOW_PRIVATE_URLS (local development and tests):
 * http, `localhost` and `*.localhost`, single-label and private-use names (`.local`,
 * `.internal`, `.home.arpa`, `.localdomain`, `.lan`), loopback, private (RFC 1918), CGNAT
 * (100.64/10) and unique-local (fc00::/7) addresses. IPv4-mapped IPv6 addresses are judged by
 * the IPv4 address they carry.
 */

export const WEBHOOK_URL_MAX = 2048;

export interface UrlPolicy {
  /** WEBHOOK_ALLOW_PRIVATE_URLS: http, loopback and private addresses and names are allowed. */
  allowPrivate: boolean;
}

export type UrlCheck =
  | {
      ok: true;
      url: URL;
      /** Host name as the connection uses it: lower case, no brackets, no trailing dot. */
      host: string;
      /** Set when the host is an IP literal (then no DNS lookup happens). */
      ip: string | null;
      port: number;
    }
  | { ok: false; reason: string };

export type AddressCheck = { ok: true; address: string; family: 4 | 6 } | { ok: false; reason: string };

/** Addresses refused whatever the operator says. */
const ALWAYS_REFUSED_V4: [string, string][] = [
  ['0.0.0.0/8', 'an unspecified ("this network") address'],
  ['169.254.0.0/16', 'a link-local address'],
  ['192.0.0.0/24', 'a reserved (IETF protocol assignment) address'],
  ['192.0.2.0/24', 'a documentation address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['192.88.99.0/24', 'a reserved (6to4 relay) address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['240.0.0.0/4', 'a reserved address'], // includes 255.255.255.255 (broadcast)
];

/** Addresses allowed only with allowPrivate. */
const PRIVATE_V4: [string, string][] = [
  ['127.0.0.0/8', 'a loopback address'],
  ['10.0.0.0/8', 'a private address'],
  ['172.16.0.0/12', 'a private address'],
  ['192.168.0.0/16', 'a private address'],
  ['100.64.0.0/10', 'a carrier-grade NAT (shared) address'],
];

const ALWAYS_REFUSED_V6: [string, string][] = [
  ['::/128', 'the unspecified address'],
  ['::/96', 'an IPv4-compatible (deprecated) address'],
  ['100::/64', 'a discard-only address'],
  ['64:ff9b::/96', 'a NAT64 address'],
  ['64:ff9b:1::/48', 'a NAT64 (local-use) address'],
  ['2001::/32', 'a Teredo address'],
  ['2001:2::/48', 'a benchmarking address'],
  ['2001:10::/28', 'an ORCHID address'],
  ['2001:20::/28', 'an ORCHIDv2 address'],
  ['2001:db8::/32', 'a documentation address'],
  ['2002::/16', 'a 6to4 address'],
  ['3fff::/20', 'a documentation address'],
  ['5f00::/16', 'a segment-routing address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a site-local (deprecated) address'],
  ['ff00::/8', 'a multicast address'],
];

const PRIVATE_V6: [string, string][] = [
  ['::1/128', 'a loopback address'],
  ['fc00::/7', 'a unique-local (private) address'],
];

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];
const parsed = (table: [string, string][]) => table.map(([cidr, why]) => [ipaddr.parseCIDR(cidr), why] as [Cidr, string]);
const REFUSED_V4 = parsed(ALWAYS_REFUSED_V4);
const LOCAL_V4 = parsed(PRIVATE_V4);
const REFUSED_V6 = parsed(ALWAYS_REFUSED_V6);
const LOCAL_V6 = parsed(PRIVATE_V6);
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** Names that never lead to the public internet. */
const LOCAL_NAME_SUFFIXES = ['localhost', 'local', 'internal', 'localdomain', 'home.arpa', 'lan', 'intranet'];
/** Special-use names (RFC 6761, RFC 7686) that never resolve to anything we could reach. */
const UNREACHABLE_NAME_SUFFIXES = ['invalid', 'test', 'onion', 'alt'];

/**
 * Checks one address (a literal from a URL or an answer of the resolver). Accepts dotted IPv4,
 * IPv6 with or without brackets, and IPv4-mapped IPv6 (judged as the IPv4 address).
 */
export function checkAddress(address: string, policy: UrlPolicy): AddressCheck {
  const text = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(text) || text.includes('%')) return { ok: false, reason: `${JSON.stringify(address)} is not an IP address` };
  // ipaddr.parse accepts classful shorthands (127.1, 0x7f.1); the URL parser has already turned
  // those into dotted quads, and a resolver answers with dotted quads, so anything else is odd.
  let ip = ipaddr.parse(text);
  if (ip.kind() === 'ipv4' && !ipaddr.IPv4.isValidFourPartDecimal(text)) {
    return { ok: false, reason: `${JSON.stringify(address)} is not a dotted-quad IPv4 address` };
  }
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address();
  }
  const shown = ip.toString();
  if (ip.kind() === 'ipv4') {
    const v4 = ip as ipaddr.IPv4;
    for (const [cidr, why] of REFUSED_V4) if (v4.match(cidr as [ipaddr.IPv4, number])) return { ok: false, reason: `${shown} is ${why}` };
    for (const [cidr, why] of LOCAL_V4) {
      if (v4.match(cidr as [ipaddr.IPv4, number])) return policy.allowPrivate ? { ok: true, address: shown, family: 4 } : { ok: false, reason: `${shown} is ${why}` };
    }
    return { ok: true, address: shown, family: 4 };
  }
  const v6 = ip as ipaddr.IPv6;
  // loopback first: ::1 is also inside ::/96 (IPv4-compatible)
  for (const [cidr, why] of LOCAL_V6) {
    if (v6.match(cidr as [ipaddr.IPv6, number])) return policy.allowPrivate ? { ok: true, address: shown, family: 6 } : { ok: false, reason: `${shown} is ${why}` };
  }
  for (const [cidr, why] of REFUSED_V6) if (v6.match(cidr as [ipaddr.IPv6, number])) return { ok: false, reason: `${shown} is ${why}` };
  if (!v6.match(GLOBAL_UNICAST_V6)) return { ok: false, reason: `${shown} is a reserved address (not global unicast)` };
  return { ok: true, address: shown, family: 6 };
}

/**
 * Checks a webhook URL without resolving it: scheme, length, user info, the host name's form,
 * and the address when the host is an IP literal. A host name still has to pass checkAddress
 * for every address it resolves to, at connect time.
 */
export function checkWebhookUrl(raw: unknown, policy: UrlPolicy): UrlCheck {
  if (typeof raw !== 'string' || raw === '') return { ok: false, reason: 'url must be a non-empty string' };
  if (raw.length > WEBHOOK_URL_MAX) return { ok: false, reason: `url is at most ${WEBHOOK_URL_MAX} characters` };
  // the URL parser would quietly drop these; refuse instead, so what is stored is what was sent
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c <= 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0x5c) return { ok: false, reason: 'url must not contain spaces, control characters or backslashes' };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'url is not a valid absolute URL' };
  }
  if (url.protocol !== 'https:' && !(policy.allowPrivate && url.protocol === 'http:')) {
    return { ok: false, reason: policy.allowPrivate ? 'url must start with https:// or http://' : 'url must start with https://' };
  }
  if (url.username !== '' || url.password !== '' || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(raw)) {
    return { ok: false, reason: 'url must not contain a user name or password' };
  }
  if (url.hash !== '' || raw.includes('#')) return { ok: false, reason: 'url must not contain a fragment (#…)' };
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (port === 0) return { ok: false, reason: 'url must not use port 0' };

  let host = url.hostname.toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) {
    const address = checkAddress(host, policy);
    return address.ok ? { ok: true, url, host: address.address, ip: address.address, port } : { ok: false, reason: `url host ${address.reason}` };
  }
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host === '') return { ok: false, reason: 'url must name a host' };
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) {
    const address = checkAddress(host, policy);
    return address.ok ? { ok: true, url, host, ip: address.address, port } : { ok: false, reason: `url host ${address.reason}` };
  }
  if (host.length > 253 || !/^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/.test(host)) {
    return { ok: false, reason: 'url host is not a valid host name' };
  }
  const labels = host.split('.');
  // a last label of digits only would be an IPv4 address the URL parser did not take as one
  if (/^[0-9]+$/.test(labels[labels.length - 1]) || /^0x[0-9a-f]*$/.test(labels[labels.length - 1])) {
    return { ok: false, reason: 'url host is not a valid host name' };
  }
  const under = (suffixes: string[]) => suffixes.find((s) => host === s || host.endsWith(`.${s}`));
  const unreachable = under(UNREACHABLE_NAME_SUFFIXES);
  if (unreachable) return { ok: false, reason: `url host is under .${unreachable}, a special-use name that is not on the public internet` };
  if (!policy.allowPrivate) {
    if (host === 'localhost' || host.endsWith('.localhost')) return { ok: false, reason: 'url must not point at localhost' };
    const local = under(LOCAL_NAME_SUFFIXES);
    if (local) return { ok: false, reason: `url host is under .${local}, a private-use name` };
    if (labels.length < 2) return { ok: false, reason: 'url host must be a fully qualified public name (a single-label name is local)' };
  }
  return { ok: true, url, host, ip: null, port };
}
