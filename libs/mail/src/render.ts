/** What an e-mail says, once; renderMail writes its plain-text and HTML bodies from it. */
export interface MailDescription {
  /** The subject, and the heading of the body. */
  title: string;
  /** Paragraphs of plain text (escaped in the HTML body). */
  paragraphs: string[];
  /** A code to type (6 digits), shown on its own line. */
  code?: string;
  /** One link with its label (http or https only). */
  link?: { url: string; label: string };
  /** A closing line under everything else (for example why the person got this e-mail). */
  footer?: string;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML text or an attribute value: every markup character escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/** No line breaks in a subject (a header): they would start another header. */
function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, ' ').trim();
}

/**
 * Both bodies of one e-mail from one description. The HTML is a plain document with inline
 * styles only: no images, no tracking pixels, no remote stylesheets or fonts, no scripts; every
 * value is escaped. The link is refused unless it is http(s), so no `javascript:` or `data:` URL
 * ever becomes clickable.
 */
export function renderMail(mail: MailDescription): RenderedMail {
  if (mail.code !== undefined && !/^\d{6}$/.test(mail.code)) throw new Error('renderMail: a code is 6 digits');
  let link: { url: string; label: string } | undefined;
  if (mail.link) {
    const url = new URL(mail.link.url);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('renderMail: a link is http or https');
    link = { url: url.href, label: mail.link.label };
  }
  const subject = oneLine(mail.title);

  const text = [
    subject,
    '',
    ...mail.paragraphs.flatMap((p) => [p, '']),
    ...(mail.code !== undefined ? [mail.code, ''] : []),
    ...(link ? [`${link.label}: ${link.url}`, ''] : []),
    ...(mail.footer !== undefined ? ['--', mail.footer, ''] : []),
  ].join('\n');

  const font = 'font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;';
  const html = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>' + escapeHtml(subject) + '</title></head>',
    `<body style="margin:0;padding:24px;${font}color:#1a1a1a;background:#ffffff;">`,
    `<h1 style="font-size:20px;margin:0 0 16px;">${escapeHtml(subject)}</h1>`,
    ...mail.paragraphs.map((p) => `<p style="font-size:15px;line-height:1.5;margin:0 0 12px;">${escapeHtml(p)}</p>`),
    ...(mail.code !== undefined ? [`<p style="font-size:28px;letter-spacing:6px;font-weight:bold;margin:16px 0;">${escapeHtml(mail.code)}</p>`] : []),
    ...(link ? [`<p style="margin:16px 0;"><a href="${escapeHtml(link.url)}" style="color:#0b57d0;">${escapeHtml(link.label)}</a></p>`, `<p style="font-size:13px;color:#555;margin:0 0 12px;word-break:break-all;">${escapeHtml(link.url)}</p>`] : []),
    ...(mail.footer !== undefined ? [`<p style="font-size:13px;color:#555;margin:24px 0 0;">${escapeHtml(mail.footer)}</p>`] : []),
    '</body>',
    '</html>',
    '',
  ].join('\n');

  return { subject, text, html };
}
