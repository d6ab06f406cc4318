/** What a test starts and later closes: an app, a node, a server, a pool. */
export interface Closable {
  close(): unknown;
}

/**
 * Closes `resources` one after another, each awaited before the next, in the order given: a
 * closable's `close()`, or a function called (a database's drop, a worker's stop). One that was
 * never started (undefined) is passed over; one that throws stops the rest, as the same awaits
 * written out in a row would. For a fixture's `close` and a suite's `afterAll`:
 *
 *   afterAll(() => closeInTurn(app, node, ticker));
 *   return { db, close: () => closeInTurn(db, () => database.drop()) };
 */
export async function closeInTurn(...resources: (Closable | (() => unknown) | undefined)[]): Promise<void> {
  for (const resource of resources) {
    if (typeof resource === 'function') await resource();
    else await resource?.close();
  }
}
