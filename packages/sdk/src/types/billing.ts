/** What can be bought: app hosting (`embed`), more memory, more disk, a custom domain. */
export type Product = "embed" | "memory" | "disk" | "domain";

/** The sizes memory and disk are sold in: 1 unit = 1 GB memory, or 5 GB disk. */
export type ResourceUnits = 1 | 2 | 4 | 8 | 16;

/** One product in `GET /billing/prices`. */
export interface ProductPrice {
  /** Sold on this server. */
  on_sale: boolean;
  /** What to quote (`$9.00 / month`); `Free` when not sold. */
  price_label: string;
  interval: "month" | "once" | null;
  /** In the currency's smallest unit; per unit for memory and disk. */
  amount: number | null;
  currency: string | null;
}

/** Memory and disk in `GET /billing/prices`: their unit and steps. */
export interface ResourcePrice extends ProductPrice {
  unit_mb: number;
  unit_price_label: string;
  steps: { units: number; mb: number; price_label: string }[];
}

/** `GET /billing/prices` (no token). */
export interface PricesView {
  /** False: payments are off on this server and everything is free. */
  payments: boolean;
  products: { embed: ProductPrice; memory: ResourcePrice; disk: ResourcePrice; domain: ProductPrice };
}

/** `GET /billing/{product}`. */
export interface ProductStatus {
  paid: boolean;
  /** Must be paid before use. */
  required: boolean;
  price_label: string;
}

/** `GET /billing`: the statuses of app hosting and the custom domain. */
export interface BillingStatuses {
  embed: ProductStatus;
  domain: ProductStatus;
}

/** Body of `POST /billing/{product}/checkout`, by product. */
export interface CheckoutInputs {
  embed: {
    site_id: string;
    /** Buys a second app rather than reusing a purchase. */
    additional?: boolean;
    /** Memory and disk bought with the hosting: steps (0 leaves the free tier). */
    resources?: { memory?: 0 | ResourceUnits; disk?: 0 | ResourceUnits };
  };
  memory: { site_id: string; units: ResourceUnits };
  disk: { site_id: string; units: ResourceUnits };
  domain: { site_id: string; additional?: boolean };
}

/** Answer of a checkout: open `url` in a browser to pay; keep `id` to confirm. */
export interface CheckoutAnswer {
  /** The payment session id; what `confirm` takes. */
  id: string;
  /** The payment page. */
  url: string;
  /** Memory/disk: the size asked for, and the units charged. */
  units?: number;
  quantity?: number;
}

/** Answer of `POST /billing/{product}/confirm`. */
export interface ConfirmAnswer {
  /** False means not yet. */
  paid: boolean;
  /** Memory/disk: the app and the limit it gets. */
  site_id?: string;
  limit_mb?: number;
}

/** One purchase in the account summary. */
export interface PurchaseView {
  id: string;
  product: Product;
  status: "active" | "past_due" | "ended";
  counts: boolean;
  site_id: string;
  project_name: string | null;
  in_use: boolean;
  units: number;
  quantity: number;
  created_at: string;
  updated_at: string;
}

/** `GET /billing/account/summary`. */
export interface AccountSummary {
  payments: boolean;
  /** Per product: purchases that count (`seats`) and those in use (`used`). */
  products: Record<Product, { seats: number; used: number; units?: number }>;
  purchases: PurchaseView[];
}
