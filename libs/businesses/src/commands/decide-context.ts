import { newId } from '@lib/http';
import type { DecideContext } from '../business.decider';

/** What a business decision may know of the world: the time and new ids (`biz_…`, `key_…`). */
export function decideContext(ids: Partial<DecideContext['ids']> = {}): DecideContext {
  return { now: new Date(), ids: { business: ids.business ?? (() => newId('biz')), key: ids.key ?? (() => newId('key')) } };
}
