import { StreamCategory, streamCategory } from '@lib/eventstore';

/**
 * The links capability's stream (decision 0014's rule: names only through these; decision 0030):
 * `link-<lnk_id>`: one payment link's events (created, updated, archived, restored, disabled,
 * deleted, and each payment it made). `link-` is no prefix of another category's name.
 */
export const LINK_ID_PATTERN = /lnk_[A-Za-z0-9]{1,64}/;
export const LINK_STREAM: StreamCategory = streamCategory('link', LINK_ID_PATTERN);

export const LINK_STREAM_CATEGORIES: readonly StreamCategory[] = [LINK_STREAM];

const LINK_ID = new RegExp(`^${LINK_ID_PATTERN.source}$`);
/** True for a well-formed link id (anything else is not_found before a stream is named). */
export const isLinkId = (id: string): boolean => LINK_ID.test(id);

/** A link's code: the last segment of its url (short, URL-safe). */
export const LINK_CODE = /^[A-Za-z0-9]{1,64}$/;
