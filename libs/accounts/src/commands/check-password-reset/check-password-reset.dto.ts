import { TokenRequest } from '../recovery-input';

/** POST /password-resets/check (decision 0038). */
export class CheckPasswordResetRequest extends TokenRequest {}
