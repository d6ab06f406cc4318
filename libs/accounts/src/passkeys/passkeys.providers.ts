import type { Provider } from '@nestjs/common';
import { AssertionCheck } from './app/assertion';
import { PasskeyWrites } from './app/passkey-writes';
import { StepUpCheck } from './app/step-up-check';
import { WebauthnChallenges } from './challenges';
import { AddPasskeyHandler } from './commands/add-passkey/add-passkey.handler';
import { PasskeySignInHandler } from './commands/passkey-sign-in/passkey-sign-in.handler';
import { RemovePasskeyHandler } from './commands/remove-passkey/remove-passkey.handler';
import { StartPasskeyRegistrationHandler } from './commands/start-passkey-registration/start-passkey-registration.handler';
import { StartPasskeySignInHandler } from './commands/start-passkey-sign-in/start-passkey-sign-in.handler';
import { StartSignupPasskeyHandler } from './commands/start-signup-passkey/start-signup-passkey.handler';
import { StartStepUpHandler } from './commands/start-step-up/start-step-up.handler';
import { StepUpHandler } from './commands/step-up/step-up.handler';
import { PasskeysReadModel } from './passkeys.read-model';
import { ListPasskeysHandler } from './queries/list-passkeys/list-passkeys.handler';

/** The passkey and step-up use cases and what they share (decision 0037), for AccountsModule. */
export const PASSKEY_PROVIDERS: Provider[] = [
  PasskeysReadModel,
  WebauthnChallenges,
  PasskeyWrites,
  AssertionCheck,
  StepUpCheck,
  StartPasskeyRegistrationHandler,
  AddPasskeyHandler,
  RemovePasskeyHandler,
  ListPasskeysHandler,
  StartPasskeySignInHandler,
  PasskeySignInHandler,
  StartStepUpHandler,
  StepUpHandler,
  StartSignupPasskeyHandler,
];
