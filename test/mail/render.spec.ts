import { escapeHtml, renderMail } from '@lib/mail';

describe('renderMail', () => {
  it('writes both bodies from one description: title, paragraphs, code, link, footer', () => {
    const mail = renderMail({
      title: 'Confirm your e-mail',
      paragraphs: ['Type this code to finish signing up.', 'It is valid for 15 minutes.'],
      code: '042917',
      link: { url: 'https://pay.example.com/verify?token=a&b=c', label: 'Open the page' },
      footer: 'You got this e-mail because someone signed up with this address.',
    });
    expect(mail.subject).toBe('Confirm your e-mail');
    expect(mail.text).toBe(
      [
        'Confirm your e-mail',
        '',
        'Type this code to finish signing up.',
        '',
        'It is valid for 15 minutes.',
        '',
        '042917',
        '',
        'Open the page: https://pay.example.com/verify?token=a&b=c',
        '',
        '--',
        'You got this e-mail because someone signed up with this address.',
        '',
      ].join('\n'),
    );
    expect(mail.html).toContain('<h1 style="font-size:20px;margin:0 0 16px;">Confirm your e-mail</h1>');
    expect(mail.html).toContain('>042917</p>');
    expect(mail.html).toContain('<a href="https://pay.example.com/verify?token=a&amp;b=c" style="color:#0b57d0;">Open the page</a>');
  });

  it('escapes every value in the HTML and keeps the text as written', () => {
    const mail = renderMail({ title: 'Hi <b>"Ada"</b> & co', paragraphs: ["<script>alert('x')</script>"], link: { url: 'https://example.com/"><img src=x>', label: '<img src=x onerror=alert(1)>' } });
    expect(mail.html).not.toMatch(/<script|<img|<b>/);
    expect(mail.html).toContain('Hi &lt;b&gt;&quot;Ada&quot;&lt;/b&gt; &amp; co');
    expect(mail.html).toContain('&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;');
    expect(mail.html).toContain('href="https://example.com/%22%3E%3Cimg%20src=x%3E"');
    expect(mail.text).toContain("<script>alert('x')</script>");
  });

  it('has no images, remote resources or scripts: the only URL is the link', () => {
    const mail = renderMail({ title: 'T', paragraphs: ['p'], code: '123456', link: { url: 'https://example.com/x', label: 'go' } });
    expect(mail.html).not.toMatch(/<img|<script|<link|<iframe|<object|url\(|src=|@import/i);
    expect(mail.html.match(/https?:\/\/[^\s"<]+/g)).toEqual(['https://example.com/x', 'https://example.com/x']);
  });

  it('refuses a link that is not http(s), a code that is not 6 digits, and folds a subject onto one line', () => {
    expect(() => renderMail({ title: 'T', paragraphs: [], link: { url: 'javascript:alert(1)', label: 'x' } })).toThrow('http or https');
    expect(() => renderMail({ title: 'T', paragraphs: [], link: { url: 'data:text/html,hi', label: 'x' } })).toThrow('http or https');
    expect(() => renderMail({ title: 'T', paragraphs: [], code: '12345' })).toThrow('6 digits');
    expect(() => renderMail({ title: 'T', paragraphs: [], code: '12345a' })).toThrow('6 digits');
    expect(renderMail({ title: 'Line\r\nBcc: x@example.com', paragraphs: [] }).subject).toBe('Line Bcc: x@example.com');
  });

  it('escapeHtml escapes the five markup characters', () => {
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });
});
