import { Controller, HttpCode, Inject, Module, Post } from '@nestjs/common';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { DevMailbox, MAILER, Mailer, MailUnavailableError, SmtpMailer, UnavailableMailer, createMailer, renderMail } from '@lib/mail';
import { Public } from '../../apps/api/src/auth/auth.decorators';
import { ApiErrors } from '../../apps/api/src/platform/openapi';
import { startTestApi } from '../support/api-app';
import { TEST_SMTP_PASSWORD, TEST_SMTP_USER, TestSmtpServer, codeIn, linkIn, parseMail, startSmtpServer } from '../support/smtp';
import { tempDir } from '../support/temp-dir';

const FROM = 'Payments Test <no-reply@pay.example.test>';

function message(to: string, code = '381204') {
  return { to, ...renderMail({ title: 'Confirm your e-mail — café ☕', paragraphs: ['Type this code: it is valid for 15 minutes.', 'Tom & Jerry <tj@example.com> said "hi".'], code, link: { url: 'https://pay.example.test/verify?flow=fl_1&x=1', label: 'Open the page' } }) };
}

async function refusal(promise: Promise<unknown>): Promise<MailUnavailableError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(MailUnavailableError);
    return error as MailUnavailableError;
  }
  throw new Error('expected MailUnavailableError');
}

describe('SmtpMailer against a real SMTP server', () => {
  let smtp: TestSmtpServer;
  let mailer: SmtpMailer;
  const logs: string[] = [];

  beforeAll(async () => {
    smtp = await startSmtpServer();
    mailer = new SmtpMailer({ url: smtp.url, from: FROM, connectionTimeoutMs: 2000, greetingTimeoutMs: 2000, socketTimeoutMs: 4000, log: (line) => logs.push(line) });
  });
  afterAll(async () => {
    await mailer?.close();
    await smtp?.close();
  });
  afterEach(() => {
    smtp.accept();
    // nothing the mailer writes ever holds the SMTP credentials
    for (const line of logs) expect(line).not.toContain(TEST_SMTP_PASSWORD);
  });

  it('delivers text and HTML bodies, the subject, the From header and the recipient, logged in as the URL user', async () => {
    await mailer.send(message('ada@example.com'));
    const mail = await smtp.waitForMessage((m) => m.to.includes('ada@example.com'));
    expect(mail.user).toBe(TEST_SMTP_USER);
    expect(mail.subject).toBe('Confirm your e-mail — café ☕');
    expect(mail.from).toBe('Payments Test <no-reply@pay.example.test>');
    expect(mail.envelope.from).toBe('no-reply@pay.example.test');
    expect(mail.headers.to).toBe('ada@example.com');
    expect(mail.headers['content-type']).toMatch(/^multipart\/alternative/);
    expect(mail.text).toContain('Tom & Jerry <tj@example.com> said "hi".');
    expect(mail.html).toContain('Tom &amp; Jerry &lt;tj@example.com&gt; said &quot;hi&quot;.');
    expect(mail.html).not.toMatch(/<img|<script|src=/i);
    expect(codeIn(mail)).toBe('381204');
    expect(linkIn(mail)).toBe('https://pay.example.test/verify?flow=fl_1&x=1');
  });

  it('a server refusing the message → MailUnavailableError (503 email_unavailable), no credentials in the error or the log', async () => {
    smtp.refuse(451);
    const error = await refusal(mailer.send(message('bob@example.com')));
    expect(error.code).toBe('email_unavailable');
    expect(error.status).toBe(503);
    expect(`${error.message} ${error.stack}`).not.toContain(TEST_SMTP_PASSWORD);
    expect(logs.at(-1)).toBe(`sending an e-mail through smtp://127.0.0.1:${smtp.port} failed (EENVELOPE 451)`);
    smtp.refuse(550);
    await refusal(mailer.send(message('bob@example.com')));
    expect(smtp.messages.filter((m) => m.to.includes('bob@example.com'))).toEqual([]);
  });

  it('a wrong password → MailUnavailableError, the password in neither the error nor the log', async () => {
    const wrong = new SmtpMailer({ url: `smtp://${TEST_SMTP_USER}:not-the-${TEST_SMTP_PASSWORD}@127.0.0.1:${smtp.port}`, from: FROM, log: (line) => logs.push(line) });
    try {
      const error = await refusal(wrong.send(message('carol@example.com')));
      expect(error.message).not.toContain('not-the-');
      expect(logs.at(-1)).toBe(`sending an e-mail through smtp://127.0.0.1:${smtp.port} failed (EAUTH 535)`);
      expect(logs.join('\n')).not.toContain('not-the-');
    } finally {
      await wrong.close();
    }
  });

  it('the server down → MailUnavailableError; up again → delivered', async () => {
    await smtp.down();
    try {
      const started = Date.now();
      await refusal(mailer.send(message('dan@example.com')));
      expect(Date.now() - started).toBeLessThan(5000);
      expect(logs.at(-1)).toMatch(new RegExp(`^sending an e-mail through smtp://127\\.0\\.0\\.1:${smtp.port} failed \\(ESOCKET|ECONNECTION`));
    } finally {
      await smtp.up();
    }
    await mailer.send(message('dan@example.com', '000111'));
    expect(codeIn(await smtp.waitForMessage((m) => m.to.includes('dan@example.com')))).toBe('000111');
  });

  it('a host that never answers → MailUnavailableError after the connection timeout', async () => {
    // 10.255.255.1 is not routed: the SYN goes unanswered
    const slow = new SmtpMailer({ url: 'smtp://u:p@10.255.255.1:2525', from: FROM, connectionTimeoutMs: 300, log: (line) => logs.push(line) });
    await refusal(slow.send(message('erin@example.com')));
    await slow.close();
  });
});

describe('without SMTP_URL', () => {
  it('the embedded store writes each message to DATA_DIR/mail as one .eml file, the log naming only the file', async () => {
    const dir = tempDir();
    const logs: string[] = [];
    try {
      const mailbox = new DevMailbox({ directory: join(dir.path, 'mail'), from: FROM, log: (line) => logs.push(line) });
      await mailbox.send(message('ada@example.com', '555123'));
      await mailbox.send(message('bob@example.com', '555124'));
      const files = readdirSync(join(dir.path, 'mail')).sort();
      expect(files).toHaveLength(2);
      expect(files.every((f) => /^\d{4}-\d\d-\d\dT[\d-]+Z-[0-9a-f]{8}\.eml$/.test(f))).toBe(true);
      const mails = files.map((f) => parseMail(readFileSync(join(dir.path, 'mail', f), 'utf8'), { from: '', to: [] }));
      expect(mails.map(codeIn).sort()).toEqual(['555123', '555124']);
      expect(mails[0].from).toBe(FROM);
      expect(mails.map((m) => m.headers.to).sort()).toEqual(['ada@example.com', 'bob@example.com']);
      expect(mails[0].html).toContain('Tom &amp; Jerry');
      expect(statSync(join(dir.path, 'mail', files[0])).mode & 0o777).toBe(0o600);
      expect(logs).toEqual(files.map((f) => `an e-mail is in ${join(dir.path, 'mail', f)}`).sort());
      expect(logs.join('\n')).not.toMatch(/555123|555124|Confirm/);
    } finally {
      dir.remove();
    }
  });

  it('a shared store sends nothing: MailUnavailableError', async () => {
    const mailer = createMailer({ smtpUrl: null, mailFrom: FROM, embedded: false, dataDir: '/nonexistent' });
    expect(mailer).toBeInstanceOf(UnavailableMailer);
    const error = await refusal(mailer.send(message('ada@example.com')));
    expect(error.code).toBe('email_unavailable');
    expect(createMailer({ smtpUrl: null, mailFrom: FROM, embedded: true, dataDir: '/d' })).toBeInstanceOf(DevMailbox);
    expect(createMailer({ smtpUrl: 'smtp://127.0.0.1:25', mailFrom: FROM, embedded: true, dataDir: '/d' })).toBeInstanceOf(SmtpMailer);
  });
});

/** A test-only route that cannot go on without its e-mail, as the accounts routes will be. */
@Public()
@Controller('mail-probe')
class MailProbeController {
  constructor(@Inject(MAILER) private readonly mailer: Mailer) {}

  @Post('send')
  @HttpCode(200)
  @ApiErrors('email_unavailable')
  async send() {
    await this.mailer.send(message('probe@example.com', '777888'));
    return { data: { sent: true } };
  }
}
@Module({ controllers: [MailProbeController] })
class MailProbeModule {}

describe('MAILER in the app', () => {
  function logSink(): { lines: string[]; stream: Writable } {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    return { lines, stream };
  }

  it('SMTP_URL: the app injects an SMTP mailer, logs the server without its credentials, and mail arrives; a route needing its e-mail answers 503 email_unavailable while SMTP is down', async () => {
    const smtp = await startSmtpServer();
    const sink = logSink();
    const api = await startTestApi({ SMTP_URL: smtp.url, MAIL_FROM: FROM }, [MailProbeModule], sink.stream);
    try {
      // a route that needs its e-mail: sent, then 503 email_unavailable while the server is down
      const sent = await fetch(`${api.base}/mail-probe/send`, { method: 'POST' });
      expect(sent.status).toBe(200);
      expect(codeIn(await smtp.waitForMessage((m) => m.to.includes('probe@example.com')))).toBe('777888');
      await smtp.down();
      const refused = await fetch(`${api.base}/mail-probe/send`, { method: 'POST' });
      expect(refused.status).toBe(503);
      expect(await refused.json()).toEqual({ error: { code: 'email_unavailable', message: expect.any(String), field: null, request_id: expect.stringMatching(/^req_/) } });
      await smtp.up();
      smtp.messages.length = 0;

      const mailer = api.app.get<Mailer>(MAILER);
      expect(mailer).toBeInstanceOf(SmtpMailer);
      await mailer.send(message('ada@example.com', '909090'));
      expect(codeIn(await smtp.waitForMessage())).toBe('909090');
      const log = sink.lines.join('\n');
      expect(log).toContain(`e-mail goes to SMTP smtp://127.0.0.1:${smtp.port}`);
      expect(log).not.toContain(TEST_SMTP_PASSWORD);
      expect(log).not.toContain('909090');
      expect(log).not.toContain('777888');
    } finally {
      await api.close();
      await smtp.close();
    }
  });

  it('the embedded default: the dev mailbox in DATA_DIR/mail', async () => {
    const dir = tempDir();
    const sink = logSink();
    const api = await startTestApi({ DATA_DIR: dir.path }, [], sink.stream);
    try {
      const mailer = api.app.get<Mailer>(MAILER);
      expect(mailer).toBeInstanceOf(DevMailbox);
      await mailer.send(message('ada@example.com', '424242'));
      expect(readdirSync(join(dir.path, 'mail'))).toHaveLength(1);
      const log = sink.lines.join('\n');
      expect(log).toContain(`e-mail goes to the dev mailbox ${join(dir.path, 'mail')}`);
      expect(log).not.toContain('424242');
    } finally {
      await api.close();
      dir.remove();
    }
  });
});
