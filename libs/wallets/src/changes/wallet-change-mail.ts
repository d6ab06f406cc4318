import { Mailer, renderMail } from '@lib/mail';

/**
 * The e-mail of a pending wallet deletion (decision 0041): what will happen and when, and the
 * link that cancels it without signing in. The token rides in the fragment (`#token=…`, as the
 * links of decision 0038): a browser never sends it to the dashboard's server, so no access log
 * holds it; the dashboard's page posts it to POST /wallet-changes/cancel.
 */
export const WALLET_CHANGE_MAIL = Symbol('WALLET_CHANGE_MAIL');
export interface WalletChangeMail {
  sendDeletionPending(to: string, notice: { businessName: string; effectiveAt: string; link: string }): Promise<void>;
}

/** Where the cancel link points: the dashboard (DASHBOARD_URL, else API_BASE_URL, else http://localhost:3000). */
export const WALLET_CHANGE_LINK_BASE = Symbol('WALLET_CHANGE_LINK_BASE');

export const walletChangeCancelLink = (base: string, token: string): string => `${base.replace(/\/+$/, '')}/wallet-change/cancel#token=${token}`;

/** The message through libs/mail (renderMail: plain text and HTML, escaped, no tracking). */
export class MailerWalletChangeMail implements WalletChangeMail {
  constructor(private readonly mailer: Mailer) {}

  async sendDeletionPending(to: string, notice: { businessName: string; effectiveAt: string; link: string }): Promise<void> {
    const mail = renderMail({
      title: 'Your wallet will be deleted in 24 hours',
      paragraphs: [
        `Someone signed in to ${notice.businessName} asked to delete its wallet. It keeps receiving payments until ${notice.effectiveAt}; after that, checkouts have nowhere to send payments (funds already received stay on-chain).`,
        'If you did not ask for this, open this link before then: it cancels the deletion, no sign-in needed. You can also cancel it from the dashboard.',
      ],
      link: { url: notice.link, label: 'Cancel the deletion' },
      footer: 'You receive this e-mail because you own this business.',
    });
    await this.mailer.send({ to, ...mail });
  }
}
