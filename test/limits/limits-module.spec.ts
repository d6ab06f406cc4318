import { Global, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { APP_CONFIG, DATABASE } from '@lib/core';
import { connectPostgres, migrate, PostgresDatabase } from '@lib/database';
import { LIMIT_STORE, LIMITS_TIME_SOURCE, LimitsModule, PeopleLimits, RedisLimitStore, SqlLimitStore } from '@lib/limits';
import { BREACH_CHECKER, OfflineBreachList, PasswordsModule, PasswordService, PwnedPasswordsChecker } from '@lib/passwords';
import { createTestDatabase, TestDatabase } from '../support/postgres';
import { TEST_REDIS_URL } from '../support/redis';
import { testClock } from './backends';

let database: TestDatabase;
let db: PostgresDatabase;

beforeAll(async () => {
  database = await createTestDatabase('limitsmod');
  db = connectPostgres(database.url, 3);
  await migrate(db);
});
afterAll(async () => {
  await db.close();
  await database.drop();
});

/** What CoreModule provides the app, without opening an event store. */
function core(redisUrl?: string) {
  @Global()
  @Module({ providers: [{ provide: APP_CONFIG, useValue: { redisUrl } }, { provide: DATABASE, useValue: db }], exports: [APP_CONFIG, DATABASE] })
  class FakeCore {}
  return FakeCore;
}

describe('LimitsModule and PasswordsModule in a Nest app', () => {
  it('inject PeopleLimits over the database (no REDIS_URL) and PasswordService with the offline list; the clock is replaceable', async () => {
    const clock = testClock();
    const moduleRef = await Test.createTestingModule({
      imports: [core(), LimitsModule, PasswordsModule.forRoot({ breachSource: 'offline', offlineBreached: ['correct-horse-staple-9'] })],
    })
      .overrideProvider(LIMITS_TIME_SOURCE)
      .useValue(clock.time)
      .compile();
    const app = moduleRef.createNestApplication();
    await app.init();
    try {
      expect(app.get(LIMIT_STORE)).toBeInstanceOf(SqlLimitStore);
      expect(app.get(BREACH_CHECKER)).toBeInstanceOf(OfflineBreachList);
      const limits = app.get(PeopleLimits);
      for (let i = 0; i < 5; i++) await limits.twoStepCodes.failed('per_module');
      expect(await limits.twoStepCodes.check('per_module')).toEqual({ allowed: false, refused: 'too_many_attempts', retryAfterSec: 900 });
      clock.advance(900_000);
      expect(await limits.twoStepCodes.check('per_module')).toEqual({ allowed: true });
      const passwords = app.get(PasswordService);
      expect(await passwords.check('correct-horse-staple-9')).toMatchObject({ ok: false, rule: 'breached' });
    } finally {
      await app.close();
    }
  });

  it('pick Redis when REDIS_URL is set, and the range API when asked', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [core(TEST_REDIS_URL), LimitsModule, PasswordsModule.forRoot({ breachSource: 'pwned', pwnedPasswordsUrl: 'http://127.0.0.1:9' })],
    }).compile();
    const app = moduleRef.createNestApplication();
    await app.init();
    try {
      expect(app.get(LIMIT_STORE)).toBeInstanceOf(RedisLimitStore);
      expect(app.get(BREACH_CHECKER)).toBeInstanceOf(PwnedPasswordsChecker);
    } finally {
      await app.close();
    }
  });
});
