import { assertDistinctCategories } from '@lib/eventstore';
import { LINK_STREAM, LINK_STREAM_CATEGORIES, LinkCommand, LinkEvent, LinkFields, LinkState, linkDecider } from '@lib/links';
import { ALL_STREAM_CATEGORIES } from '@lib/wiring';
import { givenOn } from '../support/decider-spec';

/** given(events).when(command).then(events | refusal code and field), on the link decider (decision 0030). */
const given = (events: LinkEvent[]) => givenOn<LinkCommand, LinkEvent, LinkState>(linkDecider, events);

const fields: LinkFields = { name: 'T-shirt', description: null, amount: 2500, currency: 'USD', rails: null, assets: null, success_url: null, ask_email: false, metadata: { sku: 'TS' } };
const created: LinkEvent = { type: 'LinkCreated', data: { link_id: 'lnk_a', business_id: 'biz_1', mode: 'test', code: 'abc123', ...fields } };
const archived: LinkEvent = { type: 'LinkArchived', data: { link_id: 'lnk_a' } };
const restored: LinkEvent = { type: 'LinkRestored', data: { link_id: 'lnk_a' } };
const disabled: LinkEvent = { type: 'LinkDisabled', data: { link_id: 'lnk_a', reason: 'fraud' } };
const deleted: LinkEvent = { type: 'LinkDeleted', data: { link_id: 'lnk_a' } };
const paid: LinkEvent = { type: 'LinkPaymentRecorded', data: { link_id: 'lnk_a', payment_id: 'pmt_1' } };

describe('link decider', () => {
  it('creates a link on an empty stream; creating it again changes nothing', () => {
    const create: LinkCommand = { type: 'CreateLink', linkId: 'lnk_a', businessId: 'biz_1', mode: 'test', code: 'abc123', fields };
    given([]).when(create).then([created]);
    given([created]).when(create).then([]);
  });

  it('updates the fields given, records all of them after the change, and nothing when nothing changes', () => {
    given([created]).when({ type: 'UpdateLink', businessId: 'biz_1', change: { amount: 3000, rails: ['crypto'] } }).then([{ type: 'LinkUpdated', data: { ...fields, amount: 3000, rails: ['crypto'] } }]);
    given([created]).when({ type: 'UpdateLink', businessId: 'biz_1', change: { name: 'T-shirt' } }).then([]);
    given([created, archived]).when({ type: 'UpdateLink', businessId: 'biz_1', change: { name: 'Mug' } }).then([{ type: 'LinkUpdated', data: { ...fields, name: 'Mug' } }]);
  });

  it('a card-only link priced outside the card price of §8 ($5 to $10,000) is 400 amount_out_of_range on amount, on create and when its price or rails change; with crypto or rails null it is not', () => {
    const create = (f: Partial<LinkFields>): LinkCommand => ({ type: 'CreateLink', linkId: 'lnk_a', businessId: 'biz_1', mode: 'test', code: 'abc123', fields: { ...fields, ...f } });
    for (const amount of [499, 300, 1_000_001]) given([]).when(create({ rails: ['card'], amount })).refused('amount_out_of_range', 'amount');
    for (const amount of [4, 10_001]) given([]).when(create({ rails: ['card'], amount, currency: 'JPY' })).refused('amount_out_of_range', 'amount'); // the bound in the link's currency: ¥5 to ¥10,000
    for (const amount of [500, 1_000_000]) given([]).when(create({ rails: ['card'], amount })).then([{ type: 'LinkCreated', data: { ...created.data, rails: ['card'], amount } }]);
    for (const rails of [null, ['crypto', 'card'], ['crypto']] as LinkFields['rails'][]) given([]).when(create({ rails, amount: 300 })).then([{ type: 'LinkCreated', data: { ...created.data, rails, amount: 300 } }]);
    const cheap: LinkEvent = { type: 'LinkCreated', data: { ...created.data, amount: 300 } };
    given([cheap]).when({ type: 'UpdateLink', businessId: 'biz_1', change: { rails: ['card'] } }).refused('amount_out_of_range', 'amount');
    given([created]).when({ type: 'UpdateLink', businessId: 'biz_1', change: { rails: ['card'], amount: 300 } }).refused('amount_out_of_range', 'amount');
    const cardLink: LinkEvent = { type: 'LinkCreated', data: { ...created.data, rails: ['card'] } };
    for (const amount of [300, 1_000_001]) given([cardLink]).when({ type: 'UpdateLink', businessId: 'biz_1', change: { amount } }).refused('amount_out_of_range', 'amount');
    given([cardLink]).when({ type: 'UpdateLink', businessId: 'biz_1', change: { amount: 500 } }).then([{ type: 'LinkUpdated', data: { ...fields, rails: ['card'], amount: 500 } }]);
    // adding crypto makes it payable; a link stored card-only below $5 before the rule keeps taking changes that leave its price and rails alone
    given([cheap]).when({ type: 'UpdateLink', businessId: 'biz_1', change: { rails: ['crypto', 'card'] } }).then([{ type: 'LinkUpdated', data: { ...fields, amount: 300, rails: ['crypto', 'card'] } }]);
    const stored: LinkEvent = { type: 'LinkCreated', data: { ...created.data, rails: ['card'], amount: 300 } };
    given([stored]).when({ type: 'UpdateLink', businessId: 'biz_1', change: { name: 'Mug' } }).then([{ type: 'LinkUpdated', data: { ...fields, rails: ['card'], amount: 300, name: 'Mug' } }]);
  });

  it('archives and restores; doing either twice changes nothing', () => {
    given([created]).when({ type: 'ArchiveLink', businessId: 'biz_1' }).then([archived]);
    given([created, archived]).when({ type: 'ArchiveLink', businessId: 'biz_1' }).then([]);
    given([created, archived]).when({ type: 'RestoreLink', businessId: 'biz_1' }).then([restored]);
    given([created]).when({ type: 'RestoreLink', businessId: 'biz_1' }).then([]);
  });

  it('a link disabled by the service cannot be restored, archived or changed (409 link_disabled); disabling twice changes nothing', () => {
    given([created, archived]).when({ type: 'DisableLink', reason: 'fraud' }).then([disabled]);
    given([created, disabled]).when({ type: 'DisableLink', reason: 'again' }).then([]);
    for (const command of [{ type: 'RestoreLink', businessId: 'biz_1' }, { type: 'ArchiveLink', businessId: 'biz_1' }, { type: 'UpdateLink', businessId: 'biz_1', change: { name: 'x' } }] as LinkCommand[]) {
      given([created, archived, disabled]).when(command).refused('link_disabled');
    }
    given([]).when({ type: 'DisableLink', reason: 'fraud' }).refused('not_found');
  });

  it('deletes a link without payments; one with payments is 409 link_has_payments; a deleted link is not_found', () => {
    given([created]).when({ type: 'DeleteLink', businessId: 'biz_1' }).then([deleted]);
    given([created, archived]).when({ type: 'DeleteLink', businessId: 'biz_1' }).then([deleted]);
    given([created, paid]).when({ type: 'DeleteLink', businessId: 'biz_1' }).refused('link_has_payments');
    for (const command of [{ type: 'DeleteLink', businessId: 'biz_1' }, { type: 'RestoreLink', businessId: 'biz_1' }, { type: 'UpdateLink', businessId: 'biz_1', change: { name: 'x' } }, { type: 'DisableLink', reason: 'x' }] as LinkCommand[]) {
      given([created, deleted]).when(command).refused('not_found');
    }
  });

  it("another business's link is not_found to every business command", () => {
    for (const command of [
      { type: 'UpdateLink', businessId: 'biz_2', change: { name: 'x' } },
      { type: 'ArchiveLink', businessId: 'biz_2' },
      { type: 'RestoreLink', businessId: 'biz_2' },
      { type: 'DeleteLink', businessId: 'biz_2' },
    ] as LinkCommand[]) {
      given([created]).when(command).refused('not_found');
    }
  });

  it('records the payments an active link makes (once each); archived → 410 link_archived; disabled, deleted or none → 404 link_not_found', () => {
    given([created]).when({ type: 'RecordLinkPayment', paymentId: 'pmt_1' }).then([paid]);
    given([created, paid]).when({ type: 'RecordLinkPayment', paymentId: 'pmt_1' }).then([]);
    given([created, paid]).when({ type: 'RecordLinkPayment', paymentId: 'pmt_2' }).then([{ type: 'LinkPaymentRecorded', data: { link_id: 'lnk_a', payment_id: 'pmt_2' } }]);
    given([created, archived]).when({ type: 'RecordLinkPayment', paymentId: 'pmt_1' }).refused('link_archived', 'link_code');
    given([created, restored]).when({ type: 'RecordLinkPayment', paymentId: 'pmt_1' }).then([paid]);
    given([created, disabled]).when({ type: 'RecordLinkPayment', paymentId: 'pmt_1' }).refused('link_not_found', 'link_code');
    given([created, deleted]).when({ type: 'RecordLinkPayment', paymentId: 'pmt_1' }).refused('link_not_found', 'link_code');
    given([]).when({ type: 'RecordLinkPayment', paymentId: 'pmt_1' }).refused('link_not_found', 'link_code');
  });
});

describe('link stream names', () => {
  it('link-<lnk_id>, declared with the other categories, none a prefix of another', () => {
    expect(LINK_STREAM.stream('lnk_abc')).toBe('link-lnk_abc');
    expect(LINK_STREAM.parse('link-lnk_abc')).toBe('lnk_abc');
    expect(LINK_STREAM.parse('link-pmt_abc')).toBeNull();
    expect(() => LINK_STREAM.stream('nope')).toThrow();
    for (const category of LINK_STREAM_CATEGORIES) expect(ALL_STREAM_CATEGORIES).toContain(category);
    expect(() => assertDistinctCategories(ALL_STREAM_CATEGORIES)).not.toThrow();
  });
});
