import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TwoFactorWrites } from '../../two-factor/two-factor-writes';
import { TwoFactorView, twoFactorView } from '../../two-factor/views';
import { GetTwoFactorQuery } from './get-two-factor.query';

/** The person's two-step sign-in, folded from their stream (nothing of it is projected). */
@QueryHandler(GetTwoFactorQuery)
export class GetTwoFactorHandler implements IQueryHandler<GetTwoFactorQuery, TwoFactorView> {
  constructor(private readonly writes: TwoFactorWrites) {}

  async execute({ accountId }: GetTwoFactorQuery): Promise<TwoFactorView> {
    return twoFactorView(await this.writes.state(accountId));
  }
}
