import type { Product, PurchaseStatus } from "@reposite/core";
import { appScreenPath } from "./app-page.js";
import { html, type SafeHtml } from "./html.js";

/** The billing page's address; the portal and the return pages link back to it. */
export const BILLING_PATH = "/account/billing";

/** Each product as a person would name it. */
export const PRODUCT_NAMES: Record<Product, string> = {
  embed: "App hosting",
  memory: "Memory",
  disk: "Disk",
  domain: "Domain",
};

export const STATUS_WORDS: Record<PurchaseStatus, string> = {
  pending: "Waiting for payment",
  active: "Active",
  past_due: "Payment overdue (still working while it is retried)",
  ended: "Ended",
};

/** `512 MB`, `2 GB`, `5 GB`. */
export const formatMb = (mb: number): string => (mb >= 1024 && mb % 1024 === 0 ? `${mb / 1024} GB` : `${mb} MB`);

export const unitsWords = (units: number): string => `${units} unit${units === 1 ? "" : "s"}`;

/**
 * A project's name linking where a person can see it: its app's screen when it has an app, else
 * its published site; a project that is gone is said so.
 */
export function projectLink(project: { id: string; name: string | null; hasApp: boolean; url?: string | null }): SafeHtml {
  if (project.name === null) return html`<span class="muted">a project that no longer exists</span>`;
  if (project.hasApp) return html`<a href="${appScreenPath(project.id)}">${project.name}</a>`;
  if (project.url) return html`<a href="${project.url}">${project.name}</a>`;
  return html`${project.name}`;
}
