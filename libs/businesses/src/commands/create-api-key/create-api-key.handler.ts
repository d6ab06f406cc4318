import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { mintApiKey } from '../../api-keys';
import { businessDecider } from '../../business.decider';
import { parsePermissions } from '../../permissions';
import { apiKeyView } from '../../views';
import { ApiKeyWrites } from '../api-key-writes';
import { BusinessWrites } from '../business-writes';
import { validInput } from '../valid-input';
import { CreateApiKeyCommand, CreatedKey } from './create-api-key.command';
import { CreateApiKeyDto } from './create-api-key.dto';

/**
 * Validates the input, mints the key (only its hash reaches the decider), decides it on the
 * business's stream and appends it at the revision read (CommandRunner: retried on a conflict,
 * then the read models waited for). The whole key is in the answer and nowhere else.
 */
@CommandHandler(CreateApiKeyCommand)
export class CreateApiKeyHandler implements ICommandHandler<CreateApiKeyCommand> {
  constructor(private readonly writes: BusinessWrites, private readonly keys: ApiKeyWrites) {}

  async execute({ businessId, input, meta }: CreateApiKeyCommand): Promise<CreatedKey> {
    const valid = await validInput(CreateApiKeyDto, input);
    const permissions = typeof valid.permissions === 'string' ? parsePermissions(valid.permissions) : valid.permissions;
    const minted = mintApiKey(valid.type, valid.mode);
    const command = { type: 'CreateApiKey' as const, businessId, kind: valid.type, mode: valid.mode, name: valid.name, permissions, secretHash: minted.secret_hash, last4: minted.last4 };
    await this.writes.run(businessDecider, businessId, command, meta);
    this.keys.cache.keyCreated(minted.secret_hash);
    const rows = await this.writes.rows(businessId);
    const key = [...rows.keys.values()].find((k) => k.secret_hash === minted.secret_hash)!;
    return { key: apiKeyView(key), secret: minted.secret };
  }
}
