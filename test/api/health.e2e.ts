import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { AddressInfo } from 'node:net';
import { loadConfig } from '@lib/core';
import { EVENT_STORE, EventStore, openEventStore } from '@lib/eventstore';
import { AppModule } from '../../apps/api/src/app.module';
import { tempDir } from '../support/temp-dir';

describe('the service on its embedded default', () => {
  const dir = tempDir();
  let app: INestApplication;
  let base: string;

  beforeAll(async () => {
    const config = loadConfig({ DATA_DIR: dir.path, PORT: '0' }, []);
    app = await NestFactory.create(AppModule.forRoot(config), { logger: false });
    app.setGlobalPrefix('api/v1');
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/api/v1`;
  });
  afterAll(async () => {
    await app?.close();
    dir.remove();
  });

  it('answers /api/v1/health with the store and its projections, which follow the log', async () => {
    const store = app.get<EventStore>(EVENT_STORE);
    const { position } = await store.append(`health-${randomUUID().slice(0, 8)}`, [{ id: randomUUID(), type: 'Probe', data: {} }], 'no_stream');
    const deadline = Date.now() + 5000;
    let body: { data: { kind: string; status: string; store: { adapter: string; head: string }; projections: { name: string; lag: number; state: string }[] } };
    for (;;) {
      const response = await fetch(`${base}/health`);
      expect(response.status).toBe(200);
      body = (await response.json()) as typeof body;
      if (body.data.projections[0]?.lag === 0 || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(body.data).toMatchObject({ kind: 'health', status: 'ok', store: { adapter: 'embedded', head: `${position.commit}/${position.prepare}` } });
    expect(body.data.projections).toEqual([{ name: 'stream_catalog', state: 'running', position: `${position.commit}/${position.prepare}`, lag: 0 }]);
  });

  it('refuses a second process on the same data directory with a clear error', async () => {
    await expect(openEventStore({ dataDir: dir.path })).rejects.toThrow(/data directory .* is in use by process \d+/);
  });
});
