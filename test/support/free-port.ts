import { once } from 'node:events';
import { createServer } from 'node:net';

/** A TCP port free right now on 127.0.0.1 (for a server whose own URLs must name its real origin, or a child process told its port). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
