/**
 * Operation ids of the OpenAPI document, by route (`METHOD /path` under /api/v1), so they stay
 * the same whoever serves the route: moving a handler to another controller or a CQRS handler
 * changes nothing a client generated from the document calls. A route missing here gets a
 * derived id (`post_payments_id_cancel`) and fails test/api/openapi.e2e.ts until it is named;
 * @ApiOperation({operationId}) on the handler still wins (tests' probe routes use it).
 */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  'GET /health': 'getHealth',
  'GET /health/live': 'getLiveness',
  'GET /openapi.json': 'getOpenApiDocument',
  'GET /business': 'getBusiness',
  'GET /checkout-settings': 'getCheckoutSettings',
  'PATCH /checkout-settings': 'updateCheckoutSettings',
  'PATCH /businesses/{id}': 'updateBusiness',
  'POST /businesses/{id}/alert-email/confirm': 'confirmAlertEmail',
  'GET /businesses/{id}/setup': 'getBusinessSetup',
  'POST /businesses/{id}/finish-setup': 'finishBusinessSetup',
  'GET /public/referrals/{code}': 'getReferral',
  'GET /api-keys': 'listApiKeys',
  'POST /api-keys': 'createApiKey',
  'PATCH /api-keys/{id}': 'updateApiKey',
  'POST /api-keys/{id}/roll': 'rollApiKey',
  'POST /api-keys/{id}/revoke': 'revokeApiKey',
  'POST /businesses': 'createBusiness',

  'POST /accounts': 'signUp',
  'POST /accounts/verify': 'verifySignUp',
  'POST /accounts/verify/resend': 'resendSignUpCode',
  'POST /accounts/passkey-options': 'startPasskeySignUp',
  'POST /sessions': 'signIn',
  'GET /sessions': 'listSessions',
  'DELETE /sessions/current': 'signOut',
  'DELETE /sessions/{id}': 'endSession',
  'GET /me': 'getMe',
  'POST /me/password': 'changePassword',
  'POST /sessions/two-factor': 'completeTwoFactorSignIn',
  'GET /me/two-factor': 'getTwoFactor',
  'POST /me/two-factor/setup': 'startTwoFactorSetup',
  'POST /me/two-factor': 'enableTwoFactor',
  'POST /me/two-factor/disable': 'disableTwoFactor',
  'POST /me/passkeys/registration/options': 'startPasskeyRegistration',
  'POST /me/passkeys': 'addPasskey',
  'GET /me/passkeys': 'listPasskeys',
  'DELETE /me/passkeys/{id}': 'removePasskey',
  'POST /passkeys/authentication/options': 'startPasskeySignIn',
  'POST /passkeys/authentication/verify': 'signInWithPasskey',
  'POST /sessions/current/step-up/options': 'startStepUp',
  'POST /sessions/current/step-up': 'stepUp',
  'POST /me/email': 'changeEmail',
  'POST /me/email/verify': 'verifyEmailChange',
  'POST /email-changes/undo': 'undoEmailChange',
  'POST /password-resets': 'requestPasswordReset',
  'POST /password-resets/check': 'checkPasswordReset',
  'POST /password-resets/confirm': 'confirmPasswordReset',

  'POST /payments': 'createPayment',
  'GET /payments': 'listPayments',
  'GET /payments/{id}': 'getPayment',
  'PATCH /payments/{id}': 'updatePayment',
  'POST /payments/{id}/cancel': 'cancelPayment',
  'POST /payments/{id}/accept': 'acceptPayment',
  'POST /payments/{id}/request-remainder': 'requestPaymentRemainder',

  'POST /checkouts': 'openCheckout',
  'GET /checkouts/{id}': 'getCheckout',
  'POST /checkouts/{id}/cancel': 'cancelCheckout',
  'POST /checkouts/{id}/supersede': 'supersedeCheckout',
  'POST /checkouts/{id}/claim': 'claimCheckout',
  'POST /checkouts/{id}/mark-sent': 'markCheckoutSent',
  'POST /checkouts/{id}/card-attempts': 'startCardAttempt',
  'POST /checkouts/{id}/card-attempts/{attempt_id}/confirm': 'confirmCardAttempt',
  'GET /public/receipts/{id}': 'getReceipt',

  'POST /customers': 'createCustomer',
  'GET /customers': 'listCustomers',
  'GET /customers/{id}': 'getCustomer',
  'PATCH /customers/{id}': 'updateCustomer',
  'POST /customers/{id}/block': 'blockCustomer',
  'POST /customers/{id}/unblock': 'unblockCustomer',

  'POST /links': 'createLink',
  'GET /links': 'listLinks',
  'GET /links/{id}': 'getLink',
  'PATCH /links/{id}': 'updateLink',
  'DELETE /links/{id}': 'deleteLink',
  'POST /links/{id}/archive': 'archiveLink',
  'POST /links/{id}/restore': 'restoreLink',
  'GET /search': 'search',

  'POST /wallet': 'createWallet',
  'GET /wallet': 'getWallet',
  'DELETE /wallet': 'deleteWallet',
  'POST /wallet/recovery-phrase': 'revealWalletRecoveryPhrase',
  'POST /wallet-changes/cancel': 'cancelWalletChangeByLink',
  'POST /wallet-changes/{id}/cancel': 'cancelWalletChange',
  'POST /wallet/transactions': 'createWalletTransaction',
  'GET /wallet/transactions': 'listWalletTransactions',
  'GET /wallet/transactions/{id}': 'getWalletTransaction',
  'GET /wallet/send-context': 'getWalletSendContext',

  'GET /test_clock': 'getTestClock',
  'POST /test_clock/advance': 'advanceTestClock',

  'POST /webhooks': 'createWebhookEndpoint',
  'GET /webhooks': 'listWebhookEndpoints',
  'GET /webhooks/{id}': 'getWebhookEndpoint',
  'PATCH /webhooks/{id}': 'updateWebhookEndpoint',
  'DELETE /webhooks/{id}': 'deleteWebhookEndpoint',
  'POST /webhooks/{id}/rotate-secret': 'rotateWebhookSecret',
  'POST /webhooks/{id}/test': 'sendWebhookTestEvent',
  'GET /webhooks/{id}/deliveries': 'listWebhookEndpointDeliveries',
  'GET /webhook_deliveries': 'listWebhookDeliveries',
  'GET /webhook_deliveries/{id}': 'getWebhookDelivery',
  'POST /webhook_deliveries/{id}/resend': 'resendWebhookDelivery',

  'GET /events': 'listEvents',
  'GET /events/{id}': 'getEvent',
};

/** The id of a route the table does not name: method and path in snake case. */
export function derivedOperationId(method: string, path: string): string {
  const words = path
    .replace(/[{}]/g, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
  return [method.toLowerCase(), ...words].join('_');
}
