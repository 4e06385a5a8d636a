// Records whose every byte follows from their version, so a torn one is recognised.
export const CRASH_KEYS = ["crash-test:r0", "crash-test:r1", "crash-test:r2"];
const SIZE = 1024 * 1024;

export function crashRecord(version) {
  const unit = `${version};`;
  return { version, payload: unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE) };
}

/** True when `value` is exactly a record `crashRecord` made. */
export function isWholeCrashRecord(value) {
  if (!value || typeof value !== "object" || !Number.isInteger(value.version)) return false;
  return value.payload === crashRecord(value.version).payload;
}
