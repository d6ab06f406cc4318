import { TestApi, appPerSuite, businessWithKey, Client, startApp } from '../../support/fixtures';
import { type TestEsplora, startTestEsplora } from '../../support/esplora';
import { TickerServer, startTickerServer } from '../../rates/ticker-server';
import { LocalBitcoinChain } from './local-chain';

/**
 * For a `describe` block: a local Bitcoin chain (one block mined) behind the Esplora stand-in, a
 * ticker at 60,000 USD per BTC, the app on PostgreSQL watching that Esplora (`env` added), and a
 * LIVE business named `shopName` with a created wallet. Read `suite.shop` and `suite.chain`
 * inside tests and hooks; the stand-ins are closed after the block.
 */
export function liveBitcoinShopPerSuite(shopName: string, env: NodeJS.ProcessEnv = {}): { readonly api: TestApi; readonly shop: Client; readonly chain: LocalBitcoinChain } {
  let esplora: TestEsplora | undefined;
  let ticker: TickerServer | undefined;
  let chain: LocalBitcoinChain;
  const suite = appPerSuite(
    async () => {
      esplora = await startTestEsplora();
      chain = new LocalBitcoinChain(esplora);
      chain.mine();
      ticker = await startTickerServer();
      ticker.set('BTC-USD', { kind: 'price', price: '60000.00' });
      return startApp('postgres', { RATES_URL: ticker.url, BITCOIN_ESPLORA_URL: esplora.url, CHAIN_POLL_MS: '100', ...env });
    },
    async (api) => {
      const shop = (await businessWithKey(api, false, shopName)).client;
      expect((await shop.post('/wallet', { type: 'created' })).status).toBe(201);
      return { shop, chain };
    },
  );
  afterAll(async () => {
    await esplora?.close();
    await ticker?.close();
  });
  return suite;
}
