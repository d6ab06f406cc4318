export { EvmChainMismatchError, EvmChainMovedError, EvmReader, createEvmReader, type EvmReaderOptions, type EvmToken } from './evm-reader';
