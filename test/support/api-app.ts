import { DynamicModule, ForwardReference, Type } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AddressInfo } from 'node:net';
import type { DestinationStream } from 'pino';
import { AppConfig, loadConfig } from '@lib/core';
import { createApiApp } from '../../apps/api/src/bootstrap';
import { tempDir } from './temp-dir';

export interface TestApi {
  app: NestFastifyApplication;
  config: AppConfig;
  /** http://127.0.0.1:<port>/api/v1 */
  base: string;
  port: number;
  close(): Promise<void>;
}

/** The real app on a real socket (embedded store in a temp dir unless env says otherwise). */
export async function startTestApi(
  env: NodeJS.ProcessEnv = {},
  imports: (Type | DynamicModule | ForwardReference)[] = [],
  logDestination?: DestinationStream,
): Promise<TestApi> {
  const dir = env.DATA_DIR ? null : tempDir();
  const config = loadConfig({ PORT: '0', WALLET_KEK: process.env.WALLET_KEK, ...(dir ? { DATA_DIR: dir.path } : {}), ...env }, []);
  const app = await createApiApp(config, { imports, logDestination, logLevel: logDestination ? 'info' : 'silent' });
  await app.listen(config.port, '127.0.0.1'); // PORT: 0 (any free port) unless the test chose one
  const port = (app.getHttpServer().address() as AddressInfo).port;
  return {
    app,
    config,
    port,
    base: `http://127.0.0.1:${port}/api/v1`,
    close: async () => {
      await app.close();
      dir?.remove();
    },
  };
}
