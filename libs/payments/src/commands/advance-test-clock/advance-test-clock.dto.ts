import { IsInt, Max, Min } from 'class-validator';

/** POST /test_clock/advance (beyond the spec; decision 0011): whole seconds, 1 s to 366 days. Simulated businesses only (the handler's rule). */
export class AdvanceTestClockRequest {
  @IsInt({ message: 'seconds must be a whole number of seconds' })
  @Min(1)
  @Max(366 * 24 * 3600)
  seconds!: number;
}
