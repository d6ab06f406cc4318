import { Query } from '@nestjs/cqrs';

export type Fees = Record<'slow' | 'standard' | 'fast', { max_fee_per_gas: string; max_priority_fee_per_gas: string }>;

/** What GET /wallet/send-context answers. */
export interface SendContext {
  kind: 'send_context';
  network: string;
  asset: string;
  from_address: string;
  /** EIP-155 chain id (EVM), else null. */
  chain_id: number | null;
  /** The next nonce of the address (EVM; pending transactions included), else null. */
  nonce: number | null;
  /** Fee per gas for each speed, in wei (EVM), else null. */
  fees: Fees | null;
  /** What the service lets the address send: received minus held (decimal strings); the fee coin null when the service does not track it. */
  available: { asset: string; fee_coin: string | null; fee_coin_asset: string | null };
}

/** GET /wallet/send-context: what a dashboard needs to build and sign a send from one of the wallet's addresses (decision 0040). */
export class GetSendContextQuery extends Query<SendContext> {
  constructor(
    readonly business: { id: string; simulated: boolean },
    readonly query: Record<string, unknown>,
  ) {
    super();
  }
}
