import type { ErrorCode as ContractErrorCode } from "@reposite/contract";

/**
 * The machine-readable `code`s the API answers with, so callers can tell errors apart by more
 * than their status (`err.code === "payment_required"`): the keys of the contract's one table
 * (`ERROR_CODES` in `@reposite/contract`). A newer server may add codes: `code` is typed as one of
 * these or any other string.
 */
export type ApiErrorCode = ContractErrorCode;

/** A known code, or one this version of the SDK does not know yet. */
export type ErrorCode = ApiErrorCode | (string & {});
