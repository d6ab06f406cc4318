import { thrownBy } from '../support/thrown';
import { ApiError, accountFilters, businessFilters, decodeCursor, encodeCursor, newId, pageJson, pageRequest, toPage, unfilteredListQuery } from '@lib/http';

describe('cursor pagination', () => {
  const rows = Array.from({ length: 7 }, (_, i) => ({ id: `pmt_${7 - i}`, created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, 7 - i)).toISOString() }));
  const position = (r: { id: string; created_at: string }) => r;

  it('pages newest first with has_more and an opaque next_cursor that decodes to the last row', () => {
    const page = toPage('payments', { status: 'pending' }, rows.slice(0, 4), 3, position);
    expect(page.data).toEqual(rows.slice(0, 3));
    expect(page.has_more).toBe(true);
    expect(page.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(page.next_cursor).not.toContain('pmt_5');
    expect(decodeCursor('payments', { status: 'pending' }, page.next_cursor!)).toEqual(rows[2]);
    expect(toPage('payments', {}, rows.slice(0, 2), 3, position)).toEqual({ data: rows.slice(0, 2), has_more: false, next_cursor: null });
  });

  it('pageJson: the body of a page of JSON texts is JSON.stringify of that page with the rows parsed', () => {
    const texts = rows.map((r) => JSON.stringify({ ...r, note: 'a "quoted" \\ text' }));
    for (const page of [toPage('payments', {}, texts.slice(0, 4), 3, (t) => position(JSON.parse(t))), toPage('payments', {}, texts.slice(0, 1), 3, (t) => position(JSON.parse(t))), toPage('payments', {}, [], 3, (t) => position(JSON.parse(t)))]) {
      expect(pageJson(page)).toBe(JSON.stringify({ ...page, data: page.data.map((t) => JSON.parse(t) as unknown) }));
    }
  });

  it('refuses a cursor from another list or from other filters, and garbage', () => {
    const cursor = encodeCursor('payments', { status: 'pending' }, rows[0]);
    for (const attempt of [
      () => decodeCursor('webhook_deliveries', { status: 'pending' }, cursor),
      () => decodeCursor('payments', { status: 'succeeded' }, cursor),
      () => decodeCursor('payments', { status: 'pending' }, 'not-a-cursor'),
      () => decodeCursor('payments', { status: 'pending' }, cursor + '%%'),
      () => decodeCursor('payments', {}, Buffer.from('{"v":1}').toString('base64url')),
      // the same list and filters of another business
      () => decodeCursor('payments', businessFilters('biz_b', { status: 'pending' }), encodeCursor('payments', businessFilters('biz_a', { status: 'pending' }), rows[0])),
      // the same list of another person (GET /sessions, GET /me/passkeys)
      () => decodeCursor('sessions', accountFilters('acc_b'), encodeCursor('sessions', accountFilters('acc_a'), rows[0])),
    ]) {
      expect(attempt).toThrow(ApiError);
      try {
        attempt();
      } catch (error) {
        expect(error).toMatchObject({ code: 'invalid_request', field: 'cursor', status: 400 });
      }
    }
  });

  it('refuses a cursor of the right list whose time no list wrote (a tampered cursor): 400, not a query that fails', () => {
    const filters = businessFilters('biz_a');
    const tampered = (c: unknown) => {
      const payload = JSON.parse(Buffer.from(encodeCursor('payments', filters, rows[0]), 'base64url').toString('utf8')) as Record<string, unknown>;
      return Buffer.from(JSON.stringify({ ...payload, c })).toString('base64url');
    };
    expect(decodeCursor('payments', filters, tampered(rows[0].created_at))).toEqual(rows[0]);
    for (const c of ['12', '1/2/3', 'Tue, 01 Dec 2026', '2026-02-30T00:00:00.000Z', '2026-01-01T00:00:00Z', '2026-01-01', '+275760-09-13T00:00:00.000Z', '-271821-04-20T00:00:00.000Z', '0000-01-01T00:00:00.000Z', 12, null]) {
      expect({ c, error: thrownBy(ApiError, () => decodeCursor('payments', filters, tampered(c))) }).toMatchObject({ c, error: { code: 'invalid_request', field: 'cursor', status: 400 } });
    }
  });

  it('reads limit 1..100 (default 25) and refuses anything else naming the field', () => {
    expect(pageRequest('payments', {}, {})).toEqual({ limit: 25, after: null });
    expect(pageRequest('payments', {}, { limit: '1' }).limit).toBe(1);
    expect(pageRequest('payments', {}, { limit: '100' }).limit).toBe(100);
    for (const limit of ['0', '101', '-1', '2.5', 'ten', '', '1e2', ['1', '2']]) {
      expect(() => pageRequest('payments', {}, { limit })).toThrow(expect.objectContaining({ code: 'invalid_request', field: 'limit' }));
    }
  });
});

describe('unfilteredListQuery', () => {
  it('reads a list without filters: its page alone; any other parameter (or one given twice) is 400 invalid_request naming it', () => {
    expect(unfilteredListQuery({ limit: '1', cursor: 'abc', skipped: undefined })).toEqual({ limit: '1', cursor: 'abc' });
    expect(unfilteredListQuery(undefined)).toEqual({});
    for (const [query, field] of [
      [{ limit: '1', foo: '1' }, 'foo'],
      [{ status: 'active' }, 'status'],
      [{ foo: ['1', '2'] }, 'foo'],
    ] as const) {
      expect(thrownBy(ApiError, () => unfilteredListQuery(query))).toMatchObject({ code: 'invalid_request', field, status: 400 });
    }
  });
});

describe('ids', () => {
  it('are the prefix and 24 base62 characters, distinct across many draws (the random pool refills)', () => {
    const ids = Array.from({ length: 2000 }, () => newId('pmt'));
    for (const id of ids) expect(id).toMatch(/^pmt_[0-9A-Za-z]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
