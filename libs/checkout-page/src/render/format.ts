import { fiatExponent, minorToDecimal } from '@lib/money';

/**
 * A price in minor units as people read it ("$100.00", "€1,234.50"), without a float: the
 * integer is split into its major and minor digits as text, and Intl formats that decimal
 * string exactly (Intl.NumberFormat takes decimal strings).
 */
export function formatMoney(minor: number, currency: string, locale = 'en'): string {
  let exponent: number;
  try {
    exponent = fiatExponent(currency);
  } catch {
    return `${minor} ${currency} (minor units)`;
  }
  const format = new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: exponent, maximumFractionDigits: exponent }).format as (value: string) => string;
  return format(minorToDecimal(minor, currency));
}

/** A timestamp as "27 Nov 2025, 14:05 UTC" (receipts: the service's own time zone, said). */
export function formatTime(iso: string | null): string {
  if (iso === null) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: 'UTC' }).format(date)} UTC`;
}
