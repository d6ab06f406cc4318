import { errorText, redactUrls } from '@lib/chains';

describe("a watcher's error text (shown in /health, logged) never carries a node URL's credentials", () => {
  it('cuts every URL to its origin: no user, path or query', () => {
    expect(redactUrls('POST https://user:pass@eth.example:8545/v3/KEY123?apikey=abc failed; see wss://sol.example/ws?token=t')).toBe('POST https://eth.example:8545 failed; see wss://sol.example');
  });

  it("keeps the first line of an error, viem's short message first", () => {
    const error = Object.assign(new Error('HTTP request failed.\n\nURL: https://node.example/v3/KEY123\nDetails: fetch failed'), { name: 'HttpRequestError' });
    expect(errorText(error)).toBe('HttpRequestError: HTTP request failed.');
    expect(errorText(new Error('cannot reach https://node.example/v3/KEY123 now'))).toBe('Error: cannot reach https://node.example now');
  });
});
