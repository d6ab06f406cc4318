/** The package ships no types: `test` is true when the password is on its list of 50 000 common passwords (lower case). */
declare module 'fxa-common-password-list' {
  export function test(password: string): boolean;
}
