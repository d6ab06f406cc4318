/**
 * Child process of the dispatcher crash test: a worker that runs only the webhook dispatcher
 * (lease LEASE_MS) against DATABASE_URL, until it is killed.
 */
import { connectPostgres } from '@lib/database';
import { KeyEncryptionKey } from '@lib/wallets';
import { WebhookDispatcher, WebhookSender } from '../../libs/webhooks/src';

const db = connectPostgres(process.env.DATABASE_URL!);
const dispatcher = new WebhookDispatcher(db, {
  kek: KeyEncryptionKey.parse(process.env.WALLET_KEK!),
  sender: new WebhookSender({ allowPrivateUrls: true }),
  leaseMs: Number(process.env.LEASE_MS ?? 60_000),
  pollMs: 20,
});
dispatcher.start();
process.stdout.write('ready\n');
