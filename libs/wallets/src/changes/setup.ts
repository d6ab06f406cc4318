import { WalletState, inSetup } from '../wallet.decider';

/** The business's setup (decision 0041): in setup until it finishes it with a wallet. */
export interface BusinessSetupView {
  kind: 'business_setup';
  business_id: string;
  /** `in_setup` until POST /businesses/{id}/finish-setup, then `finished`. */
  status: 'in_setup' | 'finished';
  /** What finishing still needs: `wallet` while the business has none (finishing answers 409 wallet_required). */
  requirements: 'wallet'[];
  finished_at: string | null;
}

export function setupView(businessId: string, state: WalletState): BusinessSetupView {
  const finished = !inSetup(state);
  return {
    kind: 'business_setup',
    business_id: businessId,
    status: finished ? 'finished' : 'in_setup',
    requirements: !finished && state.current === null ? ['wallet'] : [],
    finished_at: state.setupFinishedAt ?? null,
  };
}
