import { randomBytes } from 'node:crypto';
import type { AnvilNode, Hex, TxRequest } from './anvil';
import { compileContract } from './solidity';

/** The functions of test/fixtures/TestUSDC.sol that tests and benchmarks call, as Solidity signatures (viem's parseAbi). */
export const TEST_USDC_FUNCTIONS = [
  'function mint(address to, uint256 value)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function transferMany(address[] to, uint256[] value)',
] as const;

/** A test USDC (6 decimals) deployed on a node. */
export interface TestUsdc {
  readonly address: Hex;
  /** The transaction request of a transfer of `amount` (smallest units) to `to`. */
  transfer(to: Hex, amount: bigint, extra?: Omit<TxRequest, 'to' | 'data'>): TxRequest;
  /** One transaction with a Transfer to each `to[i]`. */
  transferMany(to: readonly Hex[], amounts: readonly bigint[], extra?: Omit<TxRequest, 'to' | 'data'>): TxRequest;
  /** Mints `amount` to `to` (a transaction of account 0, mined when automine is off). */
  mint(to: Hex, amount: bigint): Promise<void>;
}

/** Deploys test/fixtures/TestUSDC.sol from account 0. */
export async function deployTestUsdc(node: AnvilNode): Promise<TestUsdc> {
  const address = await node.deploy(0, compileContract('TestUSDC.sol', 'TestUSDC'));
  const { encodeFunctionData } = node.viem;
  const abi = node.viem.parseAbi(TEST_USDC_FUNCTIONS);
  const token: TestUsdc = {
    address,
    transfer: (to, amount, extra = {}) => ({
      gas: 100_000n,
      ...extra,
      to: address,
      data: encodeFunctionData({ abi, functionName: 'transfer', args: [to, amount] }),
    }),
    transferMany: (to, amounts, extra = {}) => ({
      gas: 60_000n + 40_000n * BigInt(to.length),
      ...extra,
      to: address,
      data: encodeFunctionData({ abi, functionName: 'transferMany', args: [to, amounts] }),
    }),
    async mint(to, amount) {
      const data = encodeFunctionData({ abi, functionName: 'mint', args: [to, amount] });
      const hash = await node.send(0, { to: address, data, gas: 100_000n });
      const automine = await node.rpc<boolean>('anvil_getAutomine');
      if (!automine) await node.mine();
      const receipt = await node.receipt(hash);
      if (receipt.status !== 'success') throw new Error(`mint ${hash} failed`);
    },
  };
  return token;
}

/** A fresh address nobody holds a key to (EIP-55). */
export function randomAddress(node: AnvilNode): Hex {
  return node.viem.getAddress(`0x${randomBytes(20).toString('hex')}`);
}
