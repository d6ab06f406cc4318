import { ApiProperty } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';

/** POST /test_clock/advance (beyond the spec; decision 0011): whole seconds, 1 s to 366 days. Simulated businesses only (the handler's rule). */
export class AdvanceTestClockRequest {
  @IsInt({ message: 'seconds must be a whole number of seconds' })
  @Min(1)
  @Max(366 * 24 * 3600)
  @ApiProperty({ description: "How far to move the simulated business's clock forward, in whole seconds; timers due by then (quote ends, expiries) fire." })
  seconds!: number;
}
