import { RepositeError } from "@reposite/core";

/** The error a promise rejects with, checked to be a RepositeError (a resolved promise fails the test). */
export async function failure(promise: Promise<unknown>): Promise<RepositeError> {
  const error = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!RepositeError.isInstance(error)) throw new Error(`expected a RepositeError, got ${String(error)}`);
  return error;
}
