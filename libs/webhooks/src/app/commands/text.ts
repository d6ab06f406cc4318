/** The API's trim (libs/http text-input.ts), as this library's DTOs name it. */
export { Trimmed } from '@lib/http';
