import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import type { SimulatedTransfer } from '../../domain/checkout.decider';

/** POST /checkouts/{id}/mark-sent (spec §4): what the simulated transfer is; default `exact`. Simulated businesses only (the decider's rule). */
export class MarkSentRequest {
  @IsOptional()
  @IsIn(['exact', 'underpaid', 'overpaid', 'wrong_network', 'late'], { message: 'simulate must be exact, underpaid, overpaid, wrong_network or late' })
  @ApiPropertyOptional({
    description:
      'The transfer to simulate. Default `exact`: what is still due. `underpaid` sends 90% (rounded down; with one smallest unit due nothing smaller can be sent: 400 `invalid_request`, field `simulate`), `overpaid` 110%, `wrong_network` arrives on another EVM network at the same address (needs_review), `late` ends the quote first (needs_review).',
  })
  simulate?: SimulatedTransfer;
}
