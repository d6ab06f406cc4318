import { AppConfig, ConfigError, assertServiceConfig, loadConfig } from '@lib/core';

/** The wallet and chain variables (decisions 0024, 0025), checked at start like every variable. */
describe('wallet and chain configuration', () => {
  const load = (env: NodeJS.ProcessEnv): AppConfig => loadConfig({ DATA_DIR: '/tmp/unused', ...env }, []);
  const KEK = 'ab'.repeat(32);

  it('a shared store needs a key-encryption key to run the service; the embedded default and other readers of the configuration do not', () => {
    const shared = load({ DATABASE_URL: 'postgres://x@127.0.0.1/db' });
    expect(() => assertServiceConfig(shared)).toThrow(new ConfigError('WALLET_KEK or WALLET_KEK_FILE is required with a shared store (DATABASE_URL): every process must seal and open wallet secrets under the same key'));
    expect(() => assertServiceConfig(load({ DATABASE_URL: 'postgres://x@127.0.0.1/db', WALLET_KEK: KEK }))).not.toThrow();
    expect(() => assertServiceConfig(load({ DATABASE_URL: 'postgres://x@127.0.0.1/db', WALLET_KEK_FILE: '/run/secrets/kek' }))).not.toThrow();
    expect(() => assertServiceConfig(load({}))).not.toThrow();
  });

  it('a malformed key is refused at start', () => {
    expect(() => load({ WALLET_KEK: 'ab'.repeat(31) })).toThrow(ConfigError);
    expect(() => load({ WALLET_KEK: 'not a key' })).toThrow(/WALLET_KEK must be 32 bytes/);
    expect(load({ WALLET_KEK: Buffer.alloc(32, 7).toString('base64') }).walletKek).not.toBeNull();
  });

  it('chain nodes, token overrides and the poll interval', () => {
    const config = load({
      EVM_RPC_URL_POLYGON: 'https://polygon.example/v3/key',
      EVM_TOKENS_POLYGON: 'USDC=0x9858EfFD232B4033E47d90003D41EC34EcaEda94, USDT=0x9858effd232b4033e47d90003d41ec34ecaeda94',
      SOLANA_RPC_URL: 'http://127.0.0.1:8899',
      BITCOIN_ESPLORA_URL: 'https://esplora.example/api',
      CHAIN_POLL_MS: '500',
    });
    expect(config).toMatchObject({
      evmRpcUrls: { polygon: 'https://polygon.example/v3/key' },
      evmTokens: { polygon: { USDC: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94', USDT: '0x9858effd232b4033e47d90003d41ec34ecaeda94' } },
      solanaRpcUrl: 'http://127.0.0.1:8899',
      bitcoinEsploraUrl: 'https://esplora.example/api',
      chainPollMs: 500,
    });
    expect(load({}).evmRpcUrls).toEqual({});
    expect(() => load({ EVM_RPC_URL_ETHEREUM: 'ftp://node' })).toThrow(ConfigError);
    expect(() => load({ EVM_TOKENS_ETHEREUM: 'DOGE=0x9858EfFD232B4033E47d90003D41EC34EcaEda94' })).toThrow(/EVM_TOKENS_ETHEREUM/);
    expect(() => load({ EVM_TOKENS_ETHEREUM: 'USDC=0x123' })).toThrow(/EVM_TOKENS_ETHEREUM/);
    expect(() => load({ CHAIN_POLL_MS: '10' })).toThrow(/CHAIN_POLL_MS/);
  });
});
