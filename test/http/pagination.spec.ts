import { ApiError, businessFilters, decodeCursor, encodeCursor, newId, pageJson, pageRequest, toPage } from '@lib/http';

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
    ]) {
      expect(attempt).toThrow(ApiError);
      try {
        attempt();
      } catch (error) {
        expect(error).toMatchObject({ code: 'invalid_request', field: 'cursor', status: 400 });
      }
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

describe('ids', () => {
  it('are the prefix and 24 base62 characters, distinct across many draws (the random pool refills)', () => {
    const ids = Array.from({ length: 2000 }, () => newId('pmt'));
    for (const id of ids) expect(id).toMatch(/^pmt_[0-9A-Za-z]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
