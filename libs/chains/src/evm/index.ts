export { EvmChainMismatchError, EvmChainMovedError, EvmReader, createEvmReader, type EvmReaderOptions, type EvmToken } from './evm-reader';
export {
  SignedSendRefused,
  TRANSFER_WITH_AUTHORIZATION_ABI,
  TRANSFER_WITH_AUTHORIZATION_TYPES,
  USDC_EIP712_DOMAIN,
  decodeTransferWithAuthorization,
  verifySignedEvmSend,
  verifyTransferAuthorization,
  type ExpectedEvmSend,
  type SignedSendOptions,
  type TokenDomain,
  type TransferAuthorization,
  type VerifiedEvmSend,
} from './signed-send';
