import { LINK_STREAM, LinkFields, asLinkEvent } from '@lib/links';
import { eventTime } from '@lib/payments';
import type { SearchDocument, SearchSource } from '../search.projector';
import { emptyParts } from '../terms';

/**
 * Links in the index (decisions 0030, 0031): on ID, code, name, description and price, as GET
 * /links/{id} shows them. A change replaces what is searchable; a deleted link leaves the index
 * (archived and disabled links stay findable: they are still retrievable).
 */
export const linkSearchSource: SearchSource = {
  name: 'links',
  keys(event) {
    const id = LINK_STREAM.parse(event.stream);
    if (id === null || asLinkEvent(event) === null) return null;
    return { documents: [['link', id]] };
  },
  apply(event, documents) {
    const id = LINK_STREAM.parse(event.stream);
    const link = id === null ? null : asLinkEvent(event);
    if (id === null || link === null) return;
    const existing = documents.get('link', id);
    switch (link.type) {
      case 'LinkCreated':
        documents.put(linkDocument(id, link.data.business_id, eventTime(event), link.data.code, link.data));
        return;
      case 'LinkUpdated':
        if (existing !== undefined) documents.put(linkDocument(id, existing.business_id, existing.created_at, existing.parts.ids[1] ?? '', link.data));
        return;
      case 'LinkDeleted':
        documents.remove('link', id);
        return;
      default:
        return; // status changes and payments change nothing searchable
    }
  },
};

function linkDocument(id: string, businessId: string, createdAt: string, code: string, fields: LinkFields): SearchDocument {
  return {
    kind: 'link',
    object_id: id,
    business_id: businessId,
    created_at: createdAt,
    customer_id: null,
    parts: { ...emptyParts(), ids: [id, code], words: { name: [fields.name], description: fields.description ? [fields.description] : [] }, amount: { minor: fields.amount, currency: fields.currency } },
  };
}
