import { TokenRequest } from '../recovery-input';

/** POST /email-changes/undo (decision 0038). */
export class UndoEmailChangeRequest extends TokenRequest {}
