/**
 * The error `run` throws, for asserting on its code and fields. The test fails when `run`
 * returns instead, or throws something that is not a `type`.
 */
export function thrownBy<E extends Error>(type: abstract new (...args: never[]) => E, run: () => unknown): E {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error as E;
  }
  throw new Error(`expected a ${type.name}, nothing was thrown`);
}

/** The error the promise rejects with, as `thrownBy` for a call that returns a promise. */
export async function rejectedBy<E extends Error>(type: abstract new (...args: never[]) => E, promise: Promise<unknown>): Promise<E> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error as E;
  }
  throw new Error(`expected a ${type.name}, the promise resolved`);
}
