import { AddressInfo } from 'node:net';
import { SMTPServer, SMTPServerOptions } from 'smtp-server';

/**
 * A real SMTP server in the test process (the `smtp-server` package) on 127.0.0.1 and a free
 * port: the services under test send to it over TCP exactly as to a provider, and the test reads
 * what arrived. AUTH is offered without TLS (test only) and accepts TEST_SMTP_USER; STARTTLS is
 * off, so nodemailer talks plain SMTP to it.
 *
 *   const smtp = await startSmtpServer();
 *   env: { SMTP_URL: smtp.url, MAIL_FROM: 'Payments <no-reply@example.test>' }
 *   const mail = await smtp.waitForMessage((m) => m.to.includes('ada@example.com'));
 *   codeIn(mail); linkIn(mail);
 */

export const TEST_SMTP_USER = 'mailer';
export const TEST_SMTP_PASSWORD = 's3cret-smtp-pa55';

/** One received message, parsed enough for assertions (nodemailer's MIME: text, html, or both in multipart/alternative). */
export interface ReceivedMail {
  /** SMTP envelope: MAIL FROM and RCPT TO. */
  envelope: { from: string; to: string[] };
  /** Header values by lower-case name (the last one wins), unfolded, encoded words decoded. */
  headers: Record<string, string>;
  subject: string;
  from: string;
  /** The recipient addresses of the envelope. */
  to: string[];
  text: string | null;
  html: string | null;
  /** The message as received (CRLF line ends). */
  raw: string;
  /** The user the client logged in as (null: no AUTH). */
  user: string | null;
}

export interface TestSmtpServer {
  /** smtp://mailer:…@127.0.0.1:<port> (with the test user's credentials). */
  url: string;
  /** The same without credentials. */
  anonymousUrl: string;
  port: number;
  messages: ReceivedMail[];
  waitForMessage(predicate?: (mail: ReceivedMail) => boolean, options?: { timeoutMs?: number; intervalMs?: number }): Promise<ReceivedMail>;
  /** Refuse every MAIL FROM with this reply (default 451: a temporary failure), until accept(). */
  refuse(code?: number): void;
  accept(): void;
  /** Closes the listening socket (connections are refused) until up(). */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startSmtpServer(options: { port?: number } = {}): Promise<TestSmtpServer> {
  const messages: ReceivedMail[] = [];
  let refusal: number | null = null;
  const config: SMTPServerOptions = {
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === TEST_SMTP_USER && auth.password === TEST_SMTP_PASSWORD) return callback(null, { user: auth.username });
      return callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onMailFrom(_address, _session, callback) {
      if (refusal !== null) return callback(Object.assign(new Error('Refused by the test'), { responseCode: refusal }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
        };
        messages.push(parseMail(raw, envelope, typeof session.user === 'string' ? session.user : null));
        callback();
      });
    },
  };
  let server = new SMTPServer(config);
  server.on('error', () => undefined); // a client dropping its connection is not the test's failure
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.server.address() as AddressInfo).port));
    });
  const closeServer = () => new Promise<void>((resolve) => server.close(() => resolve()));
  const port = await listen(options.port ?? 0);
  let open = true;

  return {
    url: `smtp://${TEST_SMTP_USER}:${encodeURIComponent(TEST_SMTP_PASSWORD)}@127.0.0.1:${port}`,
    anonymousUrl: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    async waitForMessage(predicate = () => true, { timeoutMs = 10_000, intervalMs = 20 } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = messages.find(predicate);
        if (found) return found;
        if (Date.now() >= deadline) {
          throw new Error(`waitForMessage: no matching message after ${timeoutMs} ms; received: ${JSON.stringify(messages.map((m) => ({ to: m.to, subject: m.subject })))}`);
        }
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
      }
    },
    refuse(code = 451) {
      refusal = code;
    },
    accept() {
      refusal = null;
    },
    async down() {
      if (!open) return;
      open = false;
      await closeServer();
    },
    async up() {
      if (open) return;
      server = new SMTPServer(config);
      server.on('error', () => undefined);
      await listen(port);
      open = true;
    },
    async close() {
      if (open) await closeServer();
      open = false;
    },
  };
}

/** The 6-digit code of a message (the first one standing alone in the text body, else the HTML). */
export function codeIn(mail: ReceivedMail): string {
  const found = /(?<![\d])(\d{6})(?![\d])/.exec(mail.text ?? '') ?? /(?<![\d#&])(\d{6})(?![\d])/.exec(stripTags(mail.html ?? ''));
  if (!found) throw new Error(`codeIn: no 6-digit code in "${mail.subject}"`);
  return found[1];
}

/** The first http(s) link of a message (the text body, else the HTML's first href), unescaped. */
export function linkIn(mail: ReceivedMail): string {
  const inText = /https?:\/\/[^\s<>"]+/.exec(mail.text ?? '');
  if (inText) return inText[0];
  const href = /href="(https?:\/\/[^"]+)"/.exec(mail.html ?? '');
  if (href) return unescapeHtml(href[1]);
  throw new Error(`linkIn: no link in "${mail.subject}"`);
}

function stripTags(html: string): string {
  return unescapeHtml(html.replace(/<[^>]*>/g, ' '));
}

export function unescapeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_m, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name]!);
}

// --- a small MIME reader: enough for what nodemailer writes (no attachments) ---

interface Part {
  headers: Record<string, string>;
  body: string;
}

function splitPart(raw: string): Part {
  const at = raw.indexOf('\r\n\r\n');
  const head = at === -1 ? raw : raw.slice(0, at);
  const body = at === -1 ? '' : raw.slice(at + 4);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = decodeWords(line.slice(colon + 1).trim());
  }
  return { headers, body };
}

/** RFC 2047 encoded words (=?utf-8?Q?…?= and =?utf-8?B?…?=); whitespace between two of them is dropped. */
function decodeWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[QqBb]\?[^?]*\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_m, _charset: string, encoding: string, data: string) =>
      encoding.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : qpBytes(data.replace(/_/g, ' ')).toString('utf8'),
    );
}

function qpBytes(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '=' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(c, 'utf8'));
    }
  }
  return Buffer.from(bytes);
}

function decodeBody(part: Part): string {
  const encoding = (part.headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  if (encoding === 'base64') return Buffer.from(part.body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') return qpBytes(part.body.replace(/=\r\n/g, '')).toString('utf8');
  return part.body;
}

function leaves(part: Part): Part[] {
  const type = part.headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!/^multipart\//i.test(type) || !boundary) return [part];
  const sections = part.body.split(`--${boundary}`);
  // sections[0] is the preamble, the last one (after "--boundary--") the epilogue
  return sections
    .slice(1)
    .filter((s) => !s.startsWith('--'))
    .map((s) => splitPart(s.replace(/^\r\n/, '').replace(/\r\n$/, '')))
    .flatMap(leaves);
}

export function parseMail(raw: string, envelope: { from: string; to: string[] }, user: string | null = null): ReceivedMail {
  const top = splitPart(raw);
  let text: string | null = null;
  let html: string | null = null;
  for (const leaf of leaves(top)) {
    const type = (leaf.headers['content-type'] ?? 'text/plain').toLowerCase();
    if (type.startsWith('text/plain') && text === null) text = decodeBody(leaf);
    else if (type.startsWith('text/html') && html === null) html = decodeBody(leaf);
  }
  return { envelope, headers: top.headers, subject: top.headers.subject ?? '', from: top.headers.from ?? '', to: envelope.to, text, html, raw, user };
}
