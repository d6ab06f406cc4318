import type { WebhookSecretStore } from '../secret-store';

/** The secrets a manual send signs with now; an endpoint always has one once recorded. */
export async function signingSecrets(secrets: WebhookSecretStore, webhookId: string): Promise<string[]> {
  const found = await secrets.signingSecrets(webhookId);
  if (found.length === 0) throw new Error(`webhook endpoint ${webhookId} has no active signing secret`);
  return found;
}
