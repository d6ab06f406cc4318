import type { CardResultReport, CardResultsSink } from './processor.port';

/**
 * Where the processors send results on their own (the port's results sink, decision 0026): the
 * payments capability connects its recorder at start. A result reported while nothing is
 * connected stays with the processor: the customer's return (confirm) or the attempt's expiry
 * timer asks the processor for it.
 */
export class CardResultsRelay implements CardResultsSink {
  private sink: CardResultsSink | null = null;

  connect(sink: CardResultsSink): void {
    this.sink = sink;
  }

  async report(report: CardResultReport): Promise<void> {
    await this.sink?.report(report);
  }
}
