import { Transform } from 'class-transformer';

/** Trims a string input (anything else is left for the validators to refuse). */
export const Trimmed = () => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));
