import type * as Web3 from '@solana/web3.js';

/** @solana/web3.js (1.x), the module. */
export type SolanaWeb3 = typeof Web3;

let loading: Promise<SolanaWeb3> | undefined;

/**
 * @solana/web3.js, loaded on first use: a process that imports @lib/chains without watching
 * Solana (the API, the CLI) does not pay its ~70 ms and ~9 MB.
 */
export function loadSolanaWeb3(): Promise<SolanaWeb3> {
  loading ??= import('@solana/web3.js');
  return loading;
}

/** The programs whose instructions move the coins the service accepts. */
export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const ASSOCIATED_TOKEN_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';

/** The genesis hash of mainnet-beta: a node that answers another serves another cluster (devnet, testnet, a local validator). */
export const MAINNET_GENESIS_HASH = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';

/**
 * The associated token account of `owner` for `mint` (the PDA of [owner, token program, mint]
 * under the associated token program): where wallets send a token to `owner` by default.
 */
export function associatedTokenAddress(web3: SolanaWeb3, owner: string, mint: string, tokenProgram: string = TOKEN_PROGRAM): string {
  const [address] = web3.PublicKey.findProgramAddressSync(
    [new web3.PublicKey(owner).toBytes(), new web3.PublicKey(tokenProgram).toBytes(), new web3.PublicKey(mint).toBytes()],
    new web3.PublicKey(ASSOCIATED_TOKEN_PROGRAM),
  );
  return address.toBase58();
}
