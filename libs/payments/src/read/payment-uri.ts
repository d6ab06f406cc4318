import { AssetCode, ChainRegistry, NetworkId, defaultRegistry } from '@lib/chains';
import { parseCryptoAmount } from '@lib/money';

/**
 * Payment URIs a wallet opens (or a QR code carries) to pay a checkout, one standard per family
 * (decision 0012). Amounts are the checkout's decimal strings; chain ids, token contracts and
 * mints come from the chain registry.
 *
 * - Bitcoin, BIP-21:        `bitcoin:<address>?amount=<BTC, decimal>`
 * - EVM native coin, EIP-681: `ethereum:<address>@<chainId>?value=<wei, integer>`
 * - EVM ERC-20, EIP-681:    `ethereum:<contract>@<chainId>/transfer?address=<address>&uint256=<smallest units, integer>`
 * - Solana, Solana Pay transfer request: `solana:<address>?amount=<coins, decimal>` plus
 *   `&spl-token=<mint>` for an SPL token (USDC, USDT).
 *
 * The chain id is always written (even Ethereum's 1), so a wallet never sends on the wrong EVM
 * network. Integers never use exponents; decimals are the minimal form (`10.5`, `0.000001`).
 */
export function paymentUri(input: { asset: AssetCode; network: NetworkId; address: string; amount: string }, registry: ChainRegistry = defaultRegistry): string {
  const on = registry.assetOn(input.asset, input.network);
  const network = registry.network(input.network);
  switch (on.family) {
    case 'bitcoin':
      return `bitcoin:${input.address}?amount=${input.amount}`;
    case 'solana': {
      const token = on.contract === null ? '' : `&spl-token=${on.contract}`;
      return `solana:${input.address}?amount=${input.amount}${token}`;
    }
    case 'evm': {
      const units = parseCryptoAmount(input.amount, on.decimals).toString();
      if (on.contract === null) return `ethereum:${input.address}@${network.chainId}?value=${units}`;
      return `ethereum:${on.contract}@${network.chainId}/transfer?address=${input.address}&uint256=${units}`;
    }
  }
}
