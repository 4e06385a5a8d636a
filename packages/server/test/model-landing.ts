/** A landing page as the fake model answers it: the tests that generate through a real server share it. */
export const MODEL_LANDING = {
  kind: "template",
  meta: { title: "Rocket CLI", description: "Launch rockets from your terminal." },
  hero: { title: "Launch from your terminal", subtitle: "Countdown, abort and plugins.", primary_cta: { label: "Get it" } },
  features: [
    { title: "Countdown", body: "Abort at any second." },
    { title: "Offline", body: "Works without a network." },
    { title: "Plugins", body: "Every launch pad." },
  ],
  sections: [],
  closing: { title: "Ready?", body: "Get it.", cta: { label: "Get it" } },
};
