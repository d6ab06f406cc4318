import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { businessDecider } from '../../business.decider';
import { DomainError } from '../../domain-error';
import { normalizePermissions, parsePermissions } from '../../permissions';
import { ApiKeyView } from '../../views';
import { ApiKeyWrites, assertKeyId } from '../api-key-writes';
import { BusinessWrites } from '../business-writes';
import { validInput } from '../valid-input';
import { UpdateApiKeyCommand } from './update-api-key.command';
import { UpdateApiKeyDto } from './update-api-key.dto';

/**
 * Validates the input and decides the change on the business's stream (the decider: 404
 * not_found for a key not of this business, 409 api_key_revoked, 409 publishable_key; 403
 * step_up_required for grants widened without a step-up, which only the key's current grants
 * tell; nothing changed, no event). Answers the key as the stream now leaves it; this process's authentication
 * cache reads the key again on its next use.
 */
@CommandHandler(UpdateApiKeyCommand)
export class UpdateApiKeyHandler implements ICommandHandler<UpdateApiKeyCommand, ApiKeyView> {
  constructor(private readonly writes: BusinessWrites, private readonly keys: ApiKeyWrites) {}

  async execute({ businessId, keyId, input, steppedUp, meta }: UpdateApiKeyCommand): Promise<ApiKeyView> {
    const valid = await validInput(UpdateApiKeyDto, input);
    assertKeyId(keyId);
    if (valid.permissions === null) {
      throw new DomainError('invalid_request', 'permissions cannot be null: send the grants a restricted key keeps (a secret key has every permission).', 'permissions');
    }
    const permissions = valid.permissions === undefined ? undefined : typeof valid.permissions === 'string' ? parsePermissions(valid.permissions) : normalizePermissions(valid.permissions);
    await this.writes.run(businessDecider, businessId, { type: 'UpdateApiKey' as const, businessId, keyId, name: valid.name, permissions, steppedUp }, meta);
    const key = await this.keys.row(businessId, keyId);
    this.keys.cache.keyChanged(key.secret_hash); // new grants hold at once here; in other processes once their cache entry expires
    return this.keys.view(key);
  }
}
