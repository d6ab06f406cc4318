import { IsOptional, IsString, ValidateIf } from 'class-validator';
import { ChangeBody, PlainText, Trimmed, TrimmedOrNull, refusedCharacter, validateInput } from '@lib/http';

/**
 * The API's one rule for free text (libs/http text-input.ts: @PlainText) and for change bodies
 * (validation.ts: @ChangeBody), through the validation pipe every route and use case uses
 * (decision 0035 and 0039, addenda of 2026-11-28).
 */
class Named {
  @PlainText('single-line')
  @IsString()
  @Trimmed()
  name!: string;

  @PlainText('multi-line')
  @IsString()
  @IsOptional()
  @TrimmedOrNull()
  note?: string | null;
}

@ChangeBody()
class Change {
  @IsString()
  @ValidateIf((o: Change) => o.name !== undefined)
  name?: string;

  @IsString()
  @IsOptional()
  note?: string | null;
}

/** The refusal validateInput throws (a DomainRefusal: code, field, message), or null. */
async function refusal(type: new () => object, value: unknown): Promise<{ code: string; field: string | null; message: string } | null> {
  try {
    await validateInput(type, value);
    return null;
  } catch (error) {
    const { code, field, message } = error as { code: string; field: string | null; message: string };
    return { code, field, message };
  }
}

describe('PlainText: free text is text', () => {
  const C0 = Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i));
  const C1 = Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(0x80 + i));
  const BIDI = ['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069'];
  const OTHER = ['\u007F', '\u2028', '\u2029', '\uFEFF'];

  it('a single line refuses every C0 and C1 control, DEL, the line separators, the bidirectional overrides and isolates, and the BOM', () => {
    for (const c of [...C0, ...C1, ...BIDI, ...OTHER]) expect({ c: c.charCodeAt(0).toString(16), refused: refusedCharacter(`a${c}b`, 'single-line') }).toEqual({ c: c.charCodeAt(0).toString(16), refused: `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` });
  });

  it('several lines take tab, line feed and carriage return, and refuse the rest', () => {
    for (const c of ['\t', '\n', '\r']) expect(refusedCharacter(`a${c}b`, 'multi-line')).toBeNull();
    for (const c of [...C0.filter((c) => !'\t\n\r'.includes(c)), ...C1, ...BIDI, ...OTHER]) expect(refusedCharacter(`a${c}b`, 'multi-line')).not.toBeNull();
  });

  it('text of every script, emoji with joiners and the direction marks pass', () => {
    for (const text of ['Café Zoë', 'Ünïcödé €5', 'מכולת השכונה\u200F', 'متجر\u061C', 'می\u200Cخواهم', '👩\u200D💻 Studio', '東京の店', "O'Brien & Sons — \"Best\""]) {
      expect(refusedCharacter(text, 'single-line')).toBeNull();
      expect(refusedCharacter(text, 'multi-line')).toBeNull();
    }
    expect(refusedCharacter(12, 'single-line')).toBeNull(); // not a string: the type rule's
  });

  it('through the validation pipe: 400 invalid_request naming the field, after the trim', async () => {
    expect(await refusal(Named, { name: 'Shop\u0007' })).toMatchObject({ code: 'invalid_request', field: 'name' });
    expect((await refusal(Named, { name: 'Shop\u0007' }))?.message).toMatch(/^name must be a single line .*U\+0007\.$/);
    expect(await refusal(Named, { name: 'Shop\nEvil' })).toMatchObject({ code: 'invalid_request', field: 'name' });
    expect(await refusal(Named, { name: 'abc\u202Egpj.exe' })).toMatchObject({ code: 'invalid_request', field: 'name' });
    expect(await refusal(Named, { name: 'Shop', note: 'one\u001Btwo' })).toMatchObject({ code: 'invalid_request', field: 'note' });
    expect(await validateInput(Named, { name: '\n Shop \r\n', note: ' line one\nline two\r\n\tend ' })).toEqual(Object.assign(new Named(), { name: 'Shop', note: 'line one\nline two\r\n\tend' }));
    expect((await validateInput(Named, { name: 'Shop', note: '  ' })).note).toBeNull();
  });
});

describe('ChangeBody: a change names at least one field', () => {
  it('{} and no body are 400 invalid_request listing the fields; null counts as named', async () => {
    for (const body of [{}, undefined]) {
      const refused = await refusal(Change, body);
      expect(refused).toEqual({ code: 'invalid_request', field: null, message: 'Send at least one field to change: name, note.' });
    }
    expect(await validateInput(Change, { note: null })).toEqual(Object.assign(new Change(), { note: null }));
    expect(await validateInput(Change, { name: 'x' })).toMatchObject({ name: 'x' });
  });

  it('a body that is refused for a field is refused for that field first', async () => {
    expect(await refusal(Change, { name: 5 })).toMatchObject({ code: 'invalid_request', field: 'name' });
    expect(await refusal(Change, { other: 1 })).toMatchObject({ code: 'invalid_request', field: 'other' });
  });

  it('a class without it takes {}', async () => {
    expect(await refusal(Named, {})).toMatchObject({ field: 'name' }); // its own rule: name required
    class Loose {
      @IsString()
      @IsOptional()
      note?: string;
    }
    expect(await validateInput(Loose, {})).toEqual(new Loose());
  });
});
