import type { NetworkFamily, WatchedAddresses } from '@lib/chains';

/** An address book for tests: fixed addresses and references, and every question it was asked. */
export class TestWatched implements WatchedAddresses {
  readonly asked: string[][] = [];
  readonly askedReferences: string[][] = [];
  readonly addresses: Set<string>;

  constructor(
    addresses: Iterable<string>,
    /** Reference key → the address of the checkout it belongs to. */
    readonly references: ReadonlyMap<string, string> = new Map(),
  ) {
    this.addresses = new Set(addresses);
  }

  async watched(family: NetworkFamily, addresses: readonly string[]): Promise<ReadonlySet<string>> {
    if (family !== 'solana') throw new Error(`asked about ${family}`);
    this.asked.push([...addresses]);
    return new Set(addresses.filter((a) => this.addresses.has(a)));
  }

  async watchedReferences(keys: readonly string[]): Promise<ReadonlyMap<string, string>> {
    this.askedReferences.push([...keys]);
    return new Map(keys.flatMap((key) => (this.references.has(key) ? [[key, this.references.get(key) as string] as const] : [])));
  }
}
