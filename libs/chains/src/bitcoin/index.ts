/**
 * Bitcoin for the watch seam (issue 11): raw block and transaction decoding (@scure/btc-signer),
 * matching outputs to watched addresses, an Esplora HTTP client, and the BitcoinReader
 * (ChainReader). Receiving addresses (BIP-84) are derived by libs/wallets (keys.ts).
 * Decisions: docs/decisions/0023-bitcoin-watching.md.
 */
export { BITCOIN_CHAINS, type BitcoinAddressParams, type BitcoinChain, bitcoinAddressParams } from './network';
export {
  type BitcoinBlock,
  type BitcoinBlockHeader,
  BitcoinDecodeError,
  type BitcoinOutput,
  type BitcoinTransaction,
  bitcoinMerkleRoot,
  bitcoinOutputAddress,
  decodeBitcoinBlock,
  decodeBitcoinHeader,
  decodeBitcoinTransaction,
} from './decode';
export { type BitcoinMatchOptions, watchedBitcoinBlockTransfers, watchedBitcoinTransfers } from './match';
export { type EsploraAddressTransaction, type EsploraBlock, EsploraClient, type EsploraClientOptions, EsploraError, type EsploraErrorKind } from './esplora';
export { BitcoinReader, type BitcoinReaderOptions } from './reader';
