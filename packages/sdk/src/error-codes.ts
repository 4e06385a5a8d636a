/**
 * The machine-readable `code`s the API answers with, so callers can tell errors apart by more
 * than their status (`err.code === "payment_required"`). The server may add codes later: `code`
 * is typed as one of these or any other string.
 */
export type ApiErrorCode =
  // 400
  | "invalid_code"
  | "invalid_units"
  | "invalid_json"
  // 402
  | "payment_required"
  // 403
  | "denied"
  | "session_required"
  // 404
  | "not_found"
  | "repo_not_found"
  | "ref_not_found"
  // 409
  | "not_opened"
  | "token_limit"
  | "wrong_account"
  | "quota_reached"
  | "storage_full"
  | "not_bundleable"
  | "not_configured"
  | "already_has"
  | "not_deployed"
  | "no_volume"
  | "run_under_way"
  | "fix_under_way"
  | "nothing_to_fix"
  | "nothing_to_publish"
  | "not_published"
  | "regenerate_required"
  | "slug_taken"
  | "slug_reserved"
  | "domain_taken"
  | "no_domain"
  | "bare_domain_unavailable"
  // 410
  | "expired"
  // 413
  | "html_too_large"
  | "body_too_large"
  // 422
  | "invalid_request"
  | "invalid_repo_url"
  | "invalid_slug"
  | "invalid_domain"
  | "reserved_domain"
  | "private_repo"
  | "instructions_too_long"
  | "not_in_plan"
  | "no_plan"
  | "confirm_mismatch"
  // 429
  | "rate_limited"
  | "generation_limit"
  | "build_limit"
  // 502, 503
  | "app_unhealthy"
  | "hosting_unavailable"
  | "payments_unavailable"
  | "repohost_unavailable";

/** A known code, or one this version of the SDK does not know yet. */
export type ErrorCode = ApiErrorCode | (string & {});
