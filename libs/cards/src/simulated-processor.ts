import { randomBytes } from 'node:crypto';
import type { Sql } from '@lib/database';
import type { CardAttemptCreated, CardAttemptRequest, CardAttemptResult, CardDeclineCode, CardProcessor } from './processor.port';
import { CardProcessorUnavailable } from './processor.port';
import type { CardResultsRelay } from './relay';
import { SIMULATED_PROCESSOR_A, SIMULATED_PROCESSOR_B, SIMULATED_B_EXCLUDED } from './routes';

/** The path of the simulated processors' secure pages, served by this service outside /api/v1. */
export const SIMULATED_PROCESSOR_PATH = '/simulated-processor/attempts';

/** One attempt as the simulated processors keep it (table `simulated_card_attempts`, migration 008). */
export interface SimulatedAttemptRow {
  ref: string;
  processor: string;
  attempt_id: string;
  checkout_id: string;
  amount: string | number;
  currency: string;
  return_url: string;
  /** pending (no card yet) | challenge (waiting for the challenge page) | silent (card taken, never answers) | succeeded | declined */
  status: 'pending' | 'challenge' | 'silent' | 'succeeded' | 'declined';
  decline_code: CardDeclineCode | null;
  retryable: boolean | null;
  brand: string | null;
  last4: string | null;
}

/**
 * A simulated card processor (decision 0026): its attempts live in its own table, its secure
 * page is served by this service (SimulatedProcessorPages), and it reports every result to the
 * results relay the moment the customer submits the page. `reachable` is the test switch that
 * makes it unreachable (SIMULATED_CARD_PROCESSORS_DOWN): createAttempt and attemptResult then
 * throw CardProcessorUnavailable.
 */
export class SimulatedCardProcessor implements CardProcessor {
  constructor(
    readonly name: string,
    private readonly db: Sql,
    private readonly relay: CardResultsRelay,
    private readonly excluded: readonly string[] = [],
    private readonly reachable: () => boolean = () => true,
  ) {}

  serves(country: string): boolean {
    return !this.excluded.includes(country);
  }

  async createAttempt(request: CardAttemptRequest): Promise<CardAttemptCreated> {
    this.assertReachable();
    const ref = `sim_${randomBytes(18).toString('base64url')}`;
    await this.db.query(
      `INSERT INTO simulated_card_attempts (ref, processor, attempt_id, checkout_id, business_id, amount, currency, email, return_url, expires_at, status)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'pending')`,
      [ref, this.name, request.attemptId, request.checkoutId, request.businessId, request.amountMinor, request.currency, request.email, request.returnUrl, request.expiresAt],
    );
    return { ref, secureUrl: `${request.serviceOrigin.replace(/\/+$/, '')}${SIMULATED_PROCESSOR_PATH}/${ref}` };
  }

  async attemptResult(ref: string): Promise<CardAttemptResult> {
    this.assertReachable();
    const row = await this.row(ref);
    return row ? resultOf(row) : { status: 'pending' };
  }

  /** The attempt of this processor with this reference, or null. */
  async row(ref: string): Promise<SimulatedAttemptRow | null> {
    const { rows } = await this.db.query<SimulatedAttemptRow>(`SELECT * FROM simulated_card_attempts WHERE ref = $1 AND processor = $2`, [ref, this.name]);
    return rows[0] ?? null;
  }

  /**
   * Records what the customer did on the page (only from `from`: a page submits once) and
   * reports a final result to the relay. False when the attempt had moved on already.
   */
  async record(ref: string, from: SimulatedAttemptRow['status'][], update: { status: SimulatedAttemptRow['status']; declineCode?: CardDeclineCode | null; retryable?: boolean | null; brand: string; last4: string }): Promise<boolean> {
    const { rows } = await this.db.query<SimulatedAttemptRow>(
      `UPDATE simulated_card_attempts SET status = $3, decline_code = $4, retryable = $5, brand = $6, last4 = $7, submitted_at = now()
       WHERE ref = $1 AND status = ANY($2::text[]) RETURNING *`,
      [ref, from, update.status, update.declineCode ?? null, update.retryable ?? null, update.brand, update.last4],
    );
    const row = rows[0];
    if (!row) return false;
    const result = resultOf(row);
    if (result.status !== 'pending') await this.relay.report({ processor: this.name, ref, attemptId: row.attempt_id, checkoutId: row.checkout_id, result });
    return true;
  }

  private assertReachable(): void {
    if (!this.reachable()) throw new CardProcessorUnavailable(this.name);
  }
}

function resultOf(row: SimulatedAttemptRow): CardAttemptResult {
  if (row.status === 'succeeded') return { status: 'succeeded', brand: row.brand ?? 'unknown', last4: row.last4 ?? '', amountMinor: Number(row.amount), currency: row.currency };
  if (row.status === 'declined') return { status: 'declined', declineCode: row.decline_code ?? 'card_declined', retryable: row.retryable ?? true, brand: row.brand, last4: row.last4 };
  return { status: 'pending' };
}

/** The two simulated processors in route order: the second does not serve SIMULATED_B_EXCLUDED. */
export function simulatedProcessors(db: Sql, relay: CardResultsRelay, down: readonly string[] = []): SimulatedCardProcessor[] {
  return [
    new SimulatedCardProcessor(SIMULATED_PROCESSOR_A, db, relay, [], () => !down.includes(SIMULATED_PROCESSOR_A)),
    new SimulatedCardProcessor(SIMULATED_PROCESSOR_B, db, relay, SIMULATED_B_EXCLUDED, () => !down.includes(SIMULATED_PROCESSOR_B)),
  ];
}
