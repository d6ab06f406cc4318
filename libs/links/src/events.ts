import { eventOf, type EventUnion } from '@lib/eventstore';
import { LINK_STREAM } from './stream-categories';

/**
 * The stored events of the links capability (decision 0030). Type names and snake_case data are
 * the stored format: add optional fields, never rename or remove.
 */

export type LinkRail = 'crypto' | 'card';

/** What a link sells and how (the fields a business sets; all of them on each change). */
export interface LinkFields {
  name: string;
  description: string | null;
  /** The fixed price, integer minor units of `currency`. */
  amount: number;
  currency: string;
  /** Rails customers may choose on this link; null: the business's checkout settings. */
  rails: LinkRail[] | null;
  /** Coins and networks customers may pay with on this link; null: the business's checkout settings. */
  assets: { asset: string; network: string }[] | null;
  success_url: string | null;
  /** Ask the customer's e-mail (as the business's `ask_email`; either asks). */
  ask_email: boolean;
  metadata: Record<string, string>;
}

export interface LinkCreatedData extends LinkFields {
  link_id: string;
  business_id: string;
  mode: 'live' | 'test';
  code: string;
}

export type LinkEvent = EventUnion<{
  LinkCreated: LinkCreatedData;
  LinkUpdated: LinkFields;
  LinkArchived: { link_id: string };
  LinkRestored: { link_id: string };
  LinkDisabled: { link_id: string; reason: string };
  LinkDeleted: { link_id: string };
  LinkPaymentRecorded: { link_id: string; payment_id: string };
}>;

export const LINK_EVENT_TYPES = ['LinkCreated', 'LinkUpdated', 'LinkArchived', 'LinkRestored', 'LinkDisabled', 'LinkDeleted', 'LinkPaymentRecorded'] as const;

/** A recorded event as a link event, or null (another stream's, or a type this version does not know). */
export function asLinkEvent(event: { stream?: string; type: string; data: unknown }): LinkEvent | null {
  return eventOf<LinkEvent>(LINK_STREAM, LINK_EVENT_TYPES, event);
}
