import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { CheckedBy } from '@lib/http';
import { OmittableNotNull } from '../input-rules';

/** POST /checkouts/{id}/card-attempts (decision 0026): the shape. Whether `route` is the checkout's current one (stale_route) is the decider's. */
export class StartCardAttemptRequest {
  @OmittableNotNull()
  @Max(100)
  @Min(1)
  @IsInt({ message: 'route must be a whole number' })
  @CheckedBy('the checkout decider', { description: "The checkout's current `card.route` (else 409 stale_route: the page is out of date)." })
  @ApiPropertyOptional({ description: 'The route the page shows (`card.route`); when sent and no longer the checkout’s, 409 `stale_route`.' })
  route?: number;
}
