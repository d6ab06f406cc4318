import { NETWORK, TEST_NETWORK } from '@scure/btc-signer';

/**
 * Which Bitcoin chain a reader decodes for. The service's network (`bitcoin` in the registry) is
 * mainnet; testnet (testnet3, testnet4 and signet share its address prefixes) and regtest exist
 * for a staging or development Esplora, and only change how output scripts spell as addresses.
 */
export type BitcoinChain = 'mainnet' | 'testnet' | 'regtest';

export const BITCOIN_CHAINS: readonly BitcoinChain[] = ['mainnet', 'testnet', 'regtest'];

/** Address prefixes of a chain, in @scure/btc-signer's shape (`BTC_NETWORK`). */
export interface BitcoinAddressParams {
  readonly bech32: string;
  readonly pubKeyHash: number;
  readonly scriptHash: number;
  readonly wif: number;
}

const PARAMS: { readonly [C in BitcoinChain]: BitcoinAddressParams } = {
  mainnet: NETWORK,
  testnet: TEST_NETWORK,
  // regtest: testnet's base58 versions, its own Bech32 prefix (Bitcoin Core chainparams)
  regtest: { ...TEST_NETWORK, bech32: 'bcrt' },
};

export function bitcoinAddressParams(chain: BitcoinChain): BitcoinAddressParams {
  const params = PARAMS[chain];
  if (params === undefined) throw new RangeError(`unknown Bitcoin chain "${String(chain)}" (expected ${BITCOIN_CHAINS.join(', ')})`);
  return params;
}
