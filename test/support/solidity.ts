import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import solc from 'solc';

/** A compiled contract: what a deployment needs. */
export interface CompiledContract {
  /** The JSON ABI as solc writes it. */
  abi: readonly Record<string, unknown>[];
  bytecode: `0x${string}`;
}

interface SolcOutput {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: CompiledContract['abi']; evm: { bytecode: { object: string } } }>>;
}

const compiled = new Map<string, CompiledContract>();

/** The folder of the test contracts' sources. */
export const FIXTURES = join(__dirname, '..', 'fixtures');

/**
 * Compiles `contract` of test/fixtures/<file> with solc from npm (solc-js, standard JSON input),
 * once per process. The EVM version is cancun, which every anvil runs. Compile errors throw with
 * solc's messages.
 */
export function compileContract(file: string, contract: string): CompiledContract {
  const key = `${file}:${contract}`;
  const cached = compiled.get(key);
  if (cached) return cached;
  const name = basename(file);
  const input = {
    language: 'Solidity',
    sources: { [name]: { content: readFileSync(join(FIXTURES, file), 'utf8') } },
    settings: {
      evmVersion: 'cancun',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)) as string) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc: ${file}:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const found = output.contracts?.[name]?.[contract];
  if (!found) throw new Error(`solc: ${file} has no contract ${contract}`);
  const result: CompiledContract = { abi: found.abi, bytecode: `0x${found.evm.bytecode.object}` };
  compiled.set(key, result);
  return result;
}
