import { Global, Inject, Injectable, Logger, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig, DATABASE } from '@lib/core';
import { Database } from '@lib/database';
import { ChallengeGuard } from './challenge.guard';
import { createChallengeVerifier } from './create-verifier';
import { CHALLENGE_VERIFIER, ChallengeVerifier } from './verifier';

@Injectable()
class ChallengeLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('challenge');

  constructor(@Inject(CHALLENGE_VERIFIER) private readonly verifier: ChallengeVerifier) {}

  onApplicationBootstrap(): void {
    this.logger.log(`bot challenges are checked by ${this.verifier.describe()}`);
  }

  async onApplicationShutdown(): Promise<void> {
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
