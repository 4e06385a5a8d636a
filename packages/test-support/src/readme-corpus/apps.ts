import type { ReadmeFixture } from "./fixture.js";

/** A desktop app: Download links per platform, screenshots, a feature with a parenthesis, bold questions. */
export const inkwellDesktop: ReadmeFixture = {
  id: "inkwell-desktop",
  shape: "desktop app",
  readme: `<div align="center">
  <img src="build/icon.png" alt="inkwell icon" width="96">
  <h1>inkwell</h1>
  <p>A distraction-free Markdown editor for macOS, Windows and Linux.</p>
  <a href="https://github.com/inkwell-app/inkwell/releases/latest"><b>Download inkwell 3.2</b></a>
</div>

![inkwell in dark mode, editing a chapter of a novel](docs/screenshot-dark.png)

## Features

- **Focus mode** dims everything but the sentence you are writing.
- **Typewriter scrolling** keeps the current line in the middle of the screen.
- **End-to-end encrypted sync between your devices** (optional, uses your own WebDAV server)
- **Export** to PDF, DOCX and EPUB with your own templates.

## Download

- [Download for macOS](https://github.com/inkwell-app/inkwell/releases/latest/download/inkwell.dmg) (Apple silicon and Intel, macOS 12 or later)
- [Download for Windows](https://github.com/inkwell-app/inkwell/releases/latest/download/inkwell-setup.exe) (Windows 10 or later)
- [Download for Linux](https://github.com/inkwell-app/inkwell/releases/latest/download/inkwell.AppImage) (AppImage)

## Screenshots

![The outline sidebar next to a long document](docs/screenshot-outline.png)

**Is inkwell free?**
Yes, inkwell is free and open source under the GPL-3.0.

**Does inkwell work offline?**
Yes. Your documents are plain files on your disk; sync is only used when you turn it on.
`,
  product: { name: "inkwell", description: "Distraction-free writing", repositoryUrl: "https://github.com/inkwell-app/inkwell", topics: ["markdown", "editor", "electron"], defaultBranch: "main" },
  expect: {
    name: "inkwell",
    tables: 0,
    numbers: ["3.2"],
    installCommand: null,
    questions: 2,
    heroImage: "https://raw.githubusercontent.com/inkwell-app/inkwell/main/docs/screenshot-dark.png",
    download: "https://github.com/inkwell-app/inkwell/releases/latest",
  },
};

/** A self-hosted service: a requirements table, docker compose, an environment table, a screenshot. */
export const pantryService: ReadmeFixture = {
  id: "pantry-service",
  shape: "self-hosted service",
  readme: `# Pantry

Pantry is a self-hosted recipe manager and meal planner for families. Import recipes from any website, plan the week and get one shopping list.

<img src="https://raw.githubusercontent.com/pantry-app/pantry/main/docs/images/planner.png" alt="The weekly meal planner with drag-and-drop recipes">

## Features

- **Recipe import** from more than 400 sites, with photos and nutrition facts
- **Meal planner**: drag recipes onto the week; the shopping list updates itself.
- **Shared households** — up to 12 members, each with their own login.

## Requirements

| Component | Minimum | Recommended |
|---|---|---|
| CPU | 1 core | 2 cores |
| Memory | 512 MB | 2 GB |
| PostgreSQL | 13 | 16 |
| Docker | 24.0 | 26.1 |

## Installation

Pantry runs with Docker Compose. Download the compose file and start it:

\`\`\`bash
curl -O https://raw.githubusercontent.com/pantry-app/pantry/main/docker-compose.yml
docker compose up -d
\`\`\`

Then open http://localhost:8080 and create the first account.

## Configuration

| Variable | Default | Description |
|---|---|---|
| \`PANTRY_PORT\` | \`8080\` | Port the web interface listens on |
| \`PANTRY_DATABASE_URL\` | — | PostgreSQL connection string |

## License

AGPL-3.0
`,
  product: { name: "pantry", description: "Self-hosted recipes and meal planning", repositoryUrl: "https://github.com/pantry-app/pantry", topics: ["self-hosted", "recipes"], defaultBranch: "main" },
  expect: {
    name: "Pantry",
    tables: 2,
    numbers: ["400", "512 MB", "2 GB", "12 members"],
    installCommand: "docker compose up -d",
    questions: 0,
    heroImage: "https://raw.githubusercontent.com/pantry-app/pantry/main/docs/images/planner.png",
    download: null,
  },
};
