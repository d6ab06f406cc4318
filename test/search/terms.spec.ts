import { amountForms, amountKey, amountQuery, emptyParts, indexedColumns, normaliseQuery, ownColumns } from '@lib/search';

/** The search index's terms (decision 0031): amount forms, query normalisation, indexed columns. */
describe('search terms', () => {
  it('an amount is found by its minor units and by its major units without trailing zeros', () => {
    expect(amountForms({ minor: 2500, currency: 'USD' })).toEqual(['2500', '25']);
    expect(amountForms({ minor: 2550, currency: 'EUR' })).toEqual(['2550', '25.5']);
    expect(amountForms({ minor: 2555, currency: 'USD' })).toEqual(['2555', '25.55']);
    expect(amountForms({ minor: 5, currency: 'USD' })).toEqual(['5', '0.05']);
    expect(amountForms({ minor: 0, currency: 'USD' })).toEqual(['0']);
    expect(amountForms({ minor: 2500, currency: 'JPY' })).toEqual(['2500']);
  });

  it('a query reads as an amount in the forms people type, or not at all', () => {
    const cases: [string, string | null][] = [
      ['25', '25'],
      ['25.00', '25'],
      ['25.0', '25'],
      ['25.50', '25.5'],
      ['$25.50', '25.5'],
      ['€ 25.50', '25.5'],
      ['25.50 USD', '25.5'],
      ['usd 25', '25'],
      ['1,250.00', '1250'],
      ['0025', '25'],
      ['2500', '2500'],
      ['25.', null],
      ['.5', null],
      ['25,5', null],
      ['abc', null],
      ['1e3', null],
      ['-25', null],
    ];
    for (const [typed, key] of cases) expect({ typed, key: amountKey(typed) }).toEqual({ typed, key });
    // every form of an amount, as typed, finds it
    for (const [minor, typed] of [[2500, ['25', '25.00', '2500', '$25']], [2550, ['25.50', '25.5', '2550']]] as const) {
      const forms = amountForms({ minor, currency: 'USD' });
      for (const t of typed) expect({ t, found: forms.includes(amountKey(t)!) }).toEqual({ t, found: true });
    }
  });

  it('reads the currency an amount query names: a code or a sign (`$` any dollar), both narrowing; none named is any currency (decision 0031, addendum 2026-11-29)', () => {
    const cases: [string, { key: string; currencies: string[] | null } | null][] = [
      ['25', { key: '25', currencies: null }],
      ['25 EUR', { key: '25', currencies: ['EUR'] }],
      ['eur 25.00', { key: '25', currencies: ['EUR'] }],
      ['€25', { key: '25', currencies: ['EUR'] }],
      ['£1,250.50', { key: '1250.5', currencies: ['GBP'] }],
      ['¥300', { key: '300', currencies: ['JPY'] }],
      ['$25', { key: '25', currencies: ['USD', 'CAD', 'AUD'] }],
      ['$25 cad', { key: '25', currencies: ['CAD'] }],
      ['25chf', { key: '25', currencies: ['CHF'] }],
      ['25€', { key: '25', currencies: ['EUR'] }],
      ['25,00 €', { key: '25', currencies: ['EUR'] }],
      ['1.234,50 €', { key: '1234.5', currencies: ['EUR'] }],
      ['2,500', { key: '2500', currencies: null }],
      ['€25 USD', null],
      ['$25 EUR', null],
      ['EUR', null],
    ];
    for (const [typed, read] of cases) expect({ typed, read: amountQuery(typed) }).toEqual({ typed, read });
    expect(normaliseQuery('€25').currencies).toEqual(['EUR']);
    expect(normaliseQuery('25').currencies).toBeNull();
  });

  it('normalises a query: folded text, an escaped LIKE pattern, a word-prefix regex with its specials escaped', () => {
    expect(normaliseQuery('  Ann.Lee@Example.COM ')).toEqual({ text: 'ann.lee@example.com', like: '%ann.lee@example.com%', wordPrefix: '(^|[^[:alnum:]])ann\\.lee@example\\.com', amount: null, currencies: null });
    expect(normaliseQuery('50%_off\\').like).toBe('%50\\%\\_off\\\\%');
    expect(normaliseQuery('a(b)*').wordPrefix).toBe('(^|[^[:alnum:]])a\\(b\\)\\*');
  });

  it('indexes exact terms, amounts and text; fields in the order of their names whatever order they were stored in', () => {
    const parts = {
      ...emptyParts(),
      ids: ['pmt_AbC', 'chk_XyZ'],
      emails: ['Bob@Shop.example'],
      hashes: ['0xABC'],
      addresses: ['0xDeF'],
      words: { reference: ['R-1'], description: ['Blue Widget'], metadata: ['gold'] },
      amount: { minor: 1999, currency: 'USD' },
      customer: { name: 'Bob Stone', email: 'bob@shop.example' },
    };
    const columns = indexedColumns(parts);
    expect(columns).toEqual({
      exact: ['pmt_abc', 'chk_xyz', 'bob@shop.example', '0xabc', '0xdef'],
      amounts: ['1999', '19.99'],
      text: ['pmt_abc', 'chk_xyz', 'bob@shop.example', '0xabc', '0xdef', 'blue widget', 'gold', 'r-1', 'bob stone'].join('\n'),
    });
    const reordered = { ...parts, words: { metadata: ['gold'], description: ['Blue Widget'], reference: ['R-1'] } };
    expect(indexedColumns(reordered)).toEqual(columns);
    // a payment's own columns: without the customer's name and e-mails (decision 0031, addendum of 2026-11-29)
    expect(ownColumns(parts)).toEqual({
      exact: ['pmt_abc', 'chk_xyz', '0xabc', '0xdef'],
      text: ['pmt_abc', 'chk_xyz', '0xabc', '0xdef', 'blue widget', 'gold', 'r-1'].join('\n'),
    });
  });
});
