import { Transform } from 'class-transformer';

/** Trims a string input (anything else is left for the validators to refuse). */
export const Trimmed = () => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

/** Trims a string input; blank is null (an optional text left empty). */
export const TrimmedOrNull = () => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() || null : value));
