import { checkAtWidths } from "@reposite/test-support";
import type { Page } from "playwright-core";
import { expect } from "vitest";

/** The page as it is now passes axe's WCAG AA and fits at 1280 and 390 px; screenshots of both are kept as artifacts. */
export async function dashboardChecks(page: Page, name: string): Promise<void> {
  expect(await checkAtWidths(page, name)).toEqual([]);
}
