import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { freePort } from './free-port';
import type { CompiledContract } from './solidity';
import { tempDir } from './temp-dir';

/** viem, loaded the only way a CommonJS file may (its types are ESM): `const viem = await loadViem()`. */
export const loadViem = () => import('viem');
export type Viem = Awaited<ReturnType<typeof loadViem>>;
export type Hex = `0x${string}`;

/** anvil's default mnemonic: its ten accounts hold 10,000 ETH each on every chain it starts. */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

/** The anvil binary of the @foundry-rs/anvil npm package (its linux-amd64 platform package). */
export function anvilBinary(): string {
  return join(dirname(require.resolve('@foundry-rs/anvil-linux-amd64/package.json')), 'bin', 'anvil');
}

export interface AnvilOptions {
  /** EIP-155 chain id (1 for an Ethereum stand-in, 137 for Polygon's). */
  chainId: number;
  /**
   * true (default): each transaction is mined at once in its own block. false (`--no-mining`):
   * blocks come only from mine(), with whatever the pool holds.
   */
  automine?: boolean;
  /** Extra command-line arguments. */
  args?: string[];
}

/** A transaction to sign: to, value in wei, calldata; nonce and gas are filled in when absent. */
export interface TxRequest {
  to: Hex;
  value?: bigint;
  data?: Hex;
  nonce?: number;
  gas?: bigint;
  /** Priority fee per gas (default 1 gwei); anvil orders a block's transactions by it. */
  priorityFee?: bigint;
}

/** A local EVM node: anvil from npm, on a free port of 127.0.0.1, its chain kept across restarts. */
export interface AnvilNode {
  readonly chainId: number;
  readonly port: number;
  readonly url: string;
  readonly viem: Viem;
  /** A JSON-RPC call; rejects with the node's error message. */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Mines `blocks` blocks (default 1) with what the pool holds; resolves the new head. */
  mine(blocks?: number): Promise<number>;
  head(): Promise<number>;
  /** evm_snapshot: an id to revert to. */
  snapshot(): Promise<Hex>;
  /** evm_revert: the chain goes back to the snapshot (later blocks are gone, the pool is emptied). */
  revert(id: Hex): Promise<void>;
  /** Address of default account `index` (0–9 hold 10,000 ETH). */
  address(index: number): Hex;
  /** Signs a transaction of account `index` (EIP-1559; raw bytes to send, again if need be). */
  sign(index: number, tx: TxRequest): Promise<Hex>;
  /** eth_sendRawTransaction: resolves the transaction hash. */
  sendRaw(raw: Hex): Promise<Hex>;
  /** Signs and sends; resolves the hash (mined at once with automine, else on the next mine()). */
  send(index: number, tx: TxRequest): Promise<Hex>;
  /** Deploys a contract from account `index`, mining it when automine is off; resolves its address. */
  deploy(index: number, contract: CompiledContract, args?: readonly unknown[]): Promise<Hex>;
  /** The receipt of a transaction, once mined (waits up to 20 s). */
  receipt(hash: Hex): Promise<{ status: 'success' | 'reverted'; blockNumber: bigint; blockHash: Hex; logs: readonly { logIndex: number }[] }>;
  /** Stops the node; its chain is written to a state file that start() loads again. */
  stop(): Promise<void>;
  /** Starts it again on the same port, with the chain it had when it stopped. */
  start(): Promise<void>;
  /** Stops it and removes its state. */
  close(): Promise<void>;
  /** What anvil printed (for failure messages). */
  output(): string;
}

/** Starts anvil; resolves once it answers JSON-RPC. Close it in an afterAll. */
export async function startAnvil(options: AnvilOptions): Promise<AnvilNode> {
  const viem = await loadViem();
  const { mnemonicToAccount } = await import('viem/accounts');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dir = tempDir('anvil-');
  const stateFile = join(dir.path, 'state.json');
  const chain = viem.defineChain({
    id: options.chainId,
    name: `anvil-${options.chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
  const client = viem.createPublicClient({ chain, transport: viem.http(url, { retryCount: 0 }) });
  let child: ChildProcess | null = null;
  let log = '';
  let id = 0;

  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    const body = (await response.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`anvil ${method}: ${body.error.message}`);
    return body.result as T;
  };

  const start = async (): Promise<void> => {
    if (child) return;
    const args = ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(options.chainId), '--state', stateFile];
    if (options.automine === false) args.push('--no-mining');
    const proc = spawn(anvilBinary(), [...args, ...(options.args ?? [])], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    proc.stdout?.on('data', (chunk: Buffer) => void (log = (log + chunk.toString()).slice(-20_000)));
    proc.stderr?.on('data', (chunk: Buffer) => void (log = (log + chunk.toString()).slice(-20_000)));
    proc.once('exit', () => {
      if (child === proc) child = null;
    });
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        await rpc('eth_chainId');
        return;
      } catch (error) {
        if (child !== proc) throw new Error(`anvil exited at start:\n${log}`);
        if (Date.now() > deadline) throw new Error(`anvil did not answer on ${url}: ${String(error)}\n${log}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  };

  const stop = async (): Promise<void> => {
    const proc = child;
    if (!proc) return;
    const exited = once(proc, 'exit');
    proc.kill('SIGTERM'); // anvil writes its state file on SIGTERM
    const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    child = null;
  };

  const killOnExit = () => child?.kill('SIGKILL');
  process.once('exit', killOnExit);
  await start();

  const accounts = new Map<number, ReturnType<typeof mnemonicToAccount>>();
  const account = (index: number) => {
    let found = accounts.get(index);
    if (!found) accounts.set(index, (found = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: index })));
    return found;
  };
  const head = async () => Number(BigInt(await rpc<string>('eth_blockNumber')));
  const sign = async (index: number, tx: TxRequest): Promise<Hex> => {
    const from = account(index);
    const nonce = tx.nonce ?? (await client.getTransactionCount({ address: from.address, blockTag: 'pending' }));
    const gas = tx.gas ?? (await client.estimateGas({ account: from.address, to: tx.to, value: tx.value ?? 0n, data: tx.data }));
    return from.signTransaction({
      type: 'eip1559',
      chainId: options.chainId,
      to: tx.to,
      value: tx.value ?? 0n,
      data: tx.data,
      nonce,
      gas,
      maxFeePerGas: 100_000_000_000n,
      maxPriorityFeePerGas: tx.priorityFee ?? 1_000_000_000n,
    });
  };
  const sendRaw = (raw: Hex) => rpc<Hex>('eth_sendRawTransaction', [raw]);
  // automining answers eth_sendRawTransaction before the block is there: wait for the receipt
  const receipt = async (hash: Hex) => {
    const found = await client.waitForTransactionReceipt({ hash, pollingInterval: 20, timeout: 20_000 });
    return { status: found.status, blockNumber: found.blockNumber, blockHash: found.blockHash, logs: found.logs.map((l) => ({ logIndex: l.logIndex })) };
  };

  return {
    chainId: options.chainId,
    port,
    url,
    viem,
    rpc,
    head,
    async mine(blocks = 1) {
      await rpc('anvil_mine', [`0x${blocks.toString(16)}`]);
      return head();
    },
    snapshot: () => rpc<Hex>('evm_snapshot'),
    async revert(snapshotId) {
      const ok = await rpc<boolean>('evm_revert', [snapshotId]);
      if (!ok) throw new Error(`evm_revert ${snapshotId} failed`);
    },
    address: (index) => account(index).address,
    sign,
    sendRaw,
    send: async (index, tx) => sendRaw(await sign(index, tx)),
    async deploy(index, contract, args = []) {
      const data = viem.encodeDeployData({ abi: contract.abi, bytecode: contract.bytecode, args });
      const from = account(index);
      const nonce = await client.getTransactionCount({ address: from.address, blockTag: 'pending' });
      const raw = await from.signTransaction({
        type: 'eip1559',
        chainId: options.chainId,
        data,
        nonce,
        gas: 5_000_000n,
        maxFeePerGas: 100_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
      });
      const hash = await sendRaw(raw);
      if (options.automine === false) await rpc('anvil_mine', ['0x1']);
      // automine answers eth_sendRawTransaction before the receipt can be read: wait for it
      const mined = await client.waitForTransactionReceipt({ hash, pollingInterval: 20, timeout: 20_000 });
      if (mined.status !== 'success' || !mined.contractAddress) throw new Error(`deployment ${hash} failed`);
      return mined.contractAddress;
    },
    receipt,
    stop,
    start,
    async close() {
      await stop();
      process.removeListener('exit', killOnExit);
      dir.remove();
    },
    output: () => log,
  };
}
