import type { CreatedBusiness } from '@lib/businesses';
import type { Database } from '@lib/database';
import { CommandRunner, EventStore, ReadModelWaiter, WriteMeta } from '@lib/eventstore';
import { CreateWalletCommand, CreateWalletHandler, DatabaseSeedVault, KekSource, WalletAddresses, loadKek } from '@lib/wallets';

/**
 * What follows the creation of a business (BusinessServiceOptions.afterCreate), the same for
 * every way a business is made (the operator CLI, the admin endpoint, the API's processes):
 * a simulated business gets a wallet created in the service at once (issue 19 A4), so every
 * crypto checkout reserves a fresh address in a wallet, simulated or not, and a business without
 * one — a live business before POST /wallet — answers 409 not_accepting.
 */
export function onboarding(createWallet: (command: CreateWalletCommand) => Promise<unknown>) {
  return async (created: CreatedBusiness, meta: WriteMeta): Promise<void> => {
    if (created.business.simulated) await createWallet(new CreateWalletCommand(created.business.id, { type: 'created' }, meta, true));
  };
}

/**
 * The same onboarding for a process without Nest (the operator CLI on the store, tools, tests):
 * the wallets use case built by hand over the store, its database and a read-model waiter that
 * runs (or waits for) the wallets projection.
 */
export function standaloneOnboarding(store: EventStore, db: Database, readModels: ReadModelWaiter, kek: KekSource) {
  const vault = new DatabaseSeedVault(db, loadKek(kek).kek);
  // it creates only simulated businesses' wallets, which watch no chain: no nodes to name
  const wallets = new CreateWalletHandler(new CommandRunner(store, readModels), new WalletAddresses(store, db, vault), vault, db, { evmRpcUrls: {}, solanaRpcUrl: null, bitcoinEsploraUrl: null });
  return onboarding((command) => wallets.execute(command));
}
