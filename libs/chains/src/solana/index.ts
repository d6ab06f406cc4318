/**
 * Solana for the watch seam (issue 11): SOL (System Program transfers) and SPL Token /
 * Token-2022 transfers of the registry's USDC and USDT found in transactions (SolanaTransfers:
 * getBlock's `encoding: 'json'`, or wire bytes with their meta), a thin JSON-RPC client
 * (SolanaRpc), and SolanaReader (ChainReader, slots as heights, skipped slots left out).
 * @solana/web3.js is loaded on first use (loadSolanaWeb3, createSolanaReader). Receiving
 * addresses (m/44'/501'/i'/0') are derived by libs/wallets (keys.ts).
 * Decisions: docs/decisions/0022-solana-watching.md.
 */
export {
  ASSOCIATED_TOKEN_PROGRAM,
  MAINNET_GENESIS_HASH,
  SYSTEM_PROGRAM,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  associatedTokenAddress,
  loadSolanaWeb3,
  type SolanaWeb3,
} from './programs';
export { SOLANA_NO_BLOCK_CODES, SolanaRpc, SolanaRpcError, type SolanaCommitment, type SolanaGetBlockConfig } from './rpc';
export { SolanaBlockUnavailableError, SolanaClusterMismatchError, SolanaReader, createSolanaReader, type SolanaReaderOptions } from './reader';
export { SolanaTransfers, type SolanaTransaction, type SolanaTransferCandidate, type SolanaTransfersOptions } from './transfers';
export { verifySignedSolanaSend, type ExpectedSolanaSend, type VerifiedSolanaSend } from './signed-send';
export type * from './rpc-types';
