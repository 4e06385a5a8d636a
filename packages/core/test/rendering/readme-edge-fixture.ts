import type { ReadmeFixture } from "@reposite/test-support";

/**
 * A README written for the designs' sake, beside the corpus: the shapes of README content that
 * stretch a layout, all in one project. One feature, a comparison table of eight columns, a section
 * that is only a screenshot (under a heading of its own: a "Screenshots" section is no page's,
 * issue 23), a long install command, a Download link as the call to action, a hero
 * screenshot and a single question.
 */
export const edgeReadme: ReadmeFixture = {
  id: "gauge-edge",
  shape: "self-hosted service with wide tables",
  readme: `<p align="center"><img src="https://raw.githubusercontent.com/gauge-hq/gauge/main/docs/logo.png" alt="Gauge logo" width="120"></p>

# Gauge

Gauge is a self-hosted metrics dashboard for small teams that keeps a year of data on one modest server.

![The Gauge dashboard with four panels of request rates](https://raw.githubusercontent.com/gauge-hq/gauge/main/docs/dashboard.png)

[Download Gauge 2.4](https://github.com/gauge-hq/gauge/releases/latest)

## Features

- **Year-long retention** on a single disk, compressed to about 1.3 bytes per sample.

## Editions compared

| Edition | CPU | Memory | Disk | Users | Retention | Single sign-on | Price |
|---|---|---|---|---|---|---|---|
| Community | 1 core | 512 MB | 10 GB | 5 | 90 days | no | free |
| Team | 2 cores | 2 GB | 50 GB | 50 | 1 year | yes | 9 EUR per month |
| Enterprise | 8 cores | 16 GB | 1 TB | unlimited | 5 years | yes | on request |

## Alerts by team

![Alert rules listed by team, with their last firing time](https://raw.githubusercontent.com/gauge-hq/gauge/main/docs/alerts.png)

## Installation

\`\`\`bash
docker run --detach --name gauge --restart unless-stopped --publish 127.0.0.1:3900:3900 --volume gauge-data:/var/lib/gauge --env GAUGE_RETENTION=365d ghcr.io/gauge-hq/gauge:2.4.1
\`\`\`

## FAQ

<details>
<summary>Can Gauge import my Prometheus data?</summary>

Yes. Point \`gauge import\` at a Prometheus snapshot directory; the import keeps labels and timestamps.

</details>
`,
  product: { name: "gauge", description: "Metrics dashboards for small teams", repositoryUrl: "https://github.com/gauge-hq/gauge", topics: ["metrics", "self-hosted"], defaultBranch: "main" },
  expect: {
    name: "Gauge",
    tables: 1,
    numbers: ["512 MB", "1.3 bytes"],
    installCommand: "docker run --detach --name gauge",
    questions: 1,
    heroImage: "https://raw.githubusercontent.com/gauge-hq/gauge/main/docs/dashboard.png",
    download: "https://github.com/gauge-hq/gauge/releases/latest",
  },
};
