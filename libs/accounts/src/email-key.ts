/** An e-mail address as the accounts read models key it: trimmed, lower case. */
export const emailKey = (email: string): string => email.trim().toLowerCase();
