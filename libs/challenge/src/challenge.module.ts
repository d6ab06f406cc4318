import { Global, Inject, Injectable, Logger, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig, DATABASE } from '@lib/core';
import { Database } from '@lib/database';
import { ChallengeGuard } from './challenge.guard';
import { createChallengeVerifier } from './create-verifier';
import { CHALLENGE_VERIFIER, ChallengeVerifier } from './verifier';

@Injectable()
class ChallengeLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('challenge');
  private sweeper: NodeJS.Timeout | null = null;

  constructor(@Inject(CHALLENGE_VERIFIER) private readonly verifier: ChallengeVerifier) {}

  onApplicationBootstrap(): void {
    this.logger.log(`bot challenges are checked by ${this.verifier.describe()}`);
    // used tokens past their time are taken over in place; an hourly sweep keeps the table small
    this.sweeper = setInterval(() => void this.verifier.purgeExpired().catch(() => undefined), 60 * 60 * 1000);
    this.sweeper.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    await this.verifier.close();
  }
}

/** Provides CHALLENGE_VERIFIER from the configuration, and ChallengeGuard for @RequiresChallenge. */
@Global()
@Module({
  providers: [
    { provide: CHALLENGE_VERIFIER, useFactory: (config: AppConfig, db: Database) => createChallengeVerifier(config, db), inject: [APP_CONFIG, DATABASE] },
    ChallengeGuard,
    ChallengeLifecycle,
  ],
  exports: [CHALLENGE_VERIFIER, ChallengeGuard],
})
export class ChallengeModule {}
