export { EvmChainMismatchError, EvmChainMovedError, EvmReader, createEvmReader, type EvmReaderOptions, type EvmToken } from './evm-reader';
export {
  SignedSendRefused,
  TRANSFER_WITH_AUTHORIZATION_TYPES,
  verifySignedEvmSend,
  verifyTransferAuthorization,
  type ExpectedEvmSend,
  type TokenDomain,
  type TransferAuthorization,
  type VerifiedEvmSend,
} from './signed-send';
