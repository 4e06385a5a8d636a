import { describe, expect, it } from "vitest";
import { storageFullDiagnosis } from "../../src/hosting/diagnosis/storage-full.js";
import { diskNeeded, formatMb, memoryNeeded } from "../../src/hosting/diagnosis/size-needed.js";

describe("the size a diagnosis asks for", () => {
  it("is the smallest purchasable memory above the peak, never less than the step above the current limit", () => {
    expect(memoryNeeded(512, 512)).toBe(1024);
    expect(memoryNeeded(128, 512)).toBe(1024);
    expect(memoryNeeded(1024, 512)).toBe(2048);
    expect(memoryNeeded(2048, 512)).toBe(4096);
    expect(memoryNeeded(3000, 512)).toBe(4096);
    expect(memoryNeeded(700, 2048)).toBe(4096);
    expect(memoryNeeded(40_000, 512)).toBe(16384);
  });

  it("is the smallest purchasable disk above what is used and the limit", () => {
    expect(diskNeeded(3200, 3072)).toBe(5120);
    expect(diskNeeded(6000, 5120)).toBe(10240);
  });

  it("reads in GB when whole", () => {
    expect(formatMb(3072)).toBe("3 GB");
    expect(formatMb(1536)).toBe("1,536 MB");
  });
});

describe("storageFullDiagnosis", () => {
  it("says how much is used of the limit and asks for the next disk size", () => {
    const diagnosis = storageFullDiagnosis(3300, 3072);
    expect(diagnosis).toMatchObject({ kind: "storage_full", title: expect.any(String), limit: { kind: "disk", needed: 5120 } });
    expect(diagnosis.detail).toContain("3,300 MB of its 3 GB");
    expect(diagnosis.fix).toContain("reset-data");
    expect(diagnosis.fix).toContain("5 GB");
  });
});
