import { Transform } from 'class-transformer';
import { ValidateBy } from 'class-validator';

/**
 * Free text the API takes and shows again — on checkout pages, receipts, e-mails (a business
 * name is in a subject line), the dashboard — is plain text (decision 0035, addendum of
 * 2026-11-28). §7 refuses null characters and unpaired surrogates in every text (json-body.ts);
 * these rules refuse, in the texts declared with them, the characters that are not text at all
 * but act on the text around them:
 *
 * - `single-line` (names, a payment's reference): no C0 control (U+0000–U+001F: tab, line feed,
 *   carriage return and the rest), no DEL (U+007F), no C1 control (U+0080–U+009F), no line or
 *   paragraph separator (U+2028, U+2029), no bidirectional embedding, override or isolate
 *   (U+202A–U+202E, U+2066–U+2069: they reorder what follows them, "Trojan Source"), no byte
 *   order mark (U+FEFF).
 * - `multi-line` (a description, a note): the same, except tab, line feed and carriage return —
 *   the three controls text is made of (as XML 1.0 allows exactly those).
 *
 * Allowed in both: the bidirectional marks (U+200E, U+200F, U+061C: they only mark a direction
 * where they stand, and right-to-left names need them) and the zero-width joiners (U+200C,
 * U+200D: scripts and emoji need them). Checked after the field's trim, so a surrounding line
 * break of a pasted name is trimmed rather than refused.
 */
export type TextLines = 'single-line' | 'multi-line';

const NOT_TEXT = '\\u0000-\\u001F\\u007F-\\u009F\\u2028\\u2029\\u202A-\\u202E\\u2066-\\u2069\\uFEFF';
const REFUSED: Record<TextLines, RegExp> = {
  'single-line': new RegExp(`[${NOT_TEXT}]`),
  'multi-line': new RegExp(`[${NOT_TEXT.replace('\\u0000-\\u001F', '\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F')}]`),
};

/** The validator names the API document knows (apps/api/src/platform/dto-schema.ts): `x-text` says which rule. */
export const TEXT_RULE_NAMES: Record<TextLines, string> = { 'single-line': 'isSingleLineText', 'multi-line': 'isMultiLineText' };

/** The first character `lines` refuses in `text`, as `U+XXXX`, or null (anything not a string is left to the type rules). */
export function refusedCharacter(text: unknown, lines: TextLines): string | null {
  if (typeof text !== 'string') return null;
  const found = REFUSED[lines].exec(text);
  return found ? `U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` : null;
}

/**
 * A text field held to the rule of `lines` (400 invalid_request naming the field through the
 * validation pipe, as any rule of a DTO). One decorator for every free text of every request:
 * a new text field takes it, and test/api/text-inputs.e2e.ts fails on a free text of the
 * document that has none.
 */
export function PlainText(lines: TextLines): PropertyDecorator {
  const words = lines === 'single-line' ? 'a single line of text (no line breaks, control or bidirectional-override characters)' : 'text (no control characters other than tab and line breaks, no bidirectional overrides)';
  return ValidateBy({
    name: TEXT_RULE_NAMES[lines],
    constraints: [lines],
    validator: {
      validate: (value: unknown) => refusedCharacter(value, lines) === null,
      defaultMessage: (args) => `${args?.property ?? 'text'} must be ${words}; it contains ${refusedCharacter(args?.value, lines)}`,
    },
  });
}

/** Trims a string input (anything else is left for the validators to refuse). */
export const Trimmed = () => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

/** Trims a string input; blank is null (an optional, nullable text left empty). */
export const TrimmedOrNull = () => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() || null : value));
