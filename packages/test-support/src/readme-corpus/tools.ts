import type { ReadmeFixture } from "./fixture.js";

/**
 * A CLI tool: badges, a quoted tagline ending in an emoji code, a navigation line, bold bullet
 * leads after a dash, a colon or an emoji and a hyphen, two install commands, an options table, a
 * link reference. Also the CLI README of the reader's and authors' unit tests.
 */
export const tidyfilesCli: ReadmeFixture = {
  id: "tidyfiles-cli",
  shape: "CLI tool",
  readme: `<!-- markdownlint-disable -->
# tidyfiles

[![npm version](https://img.shields.io/npm/v/tidyfiles.svg)](https://www.npmjs.com/package/tidyfiles)
[![CI](https://github.com/acme/tidyfiles/actions/workflows/ci.yml/badge.svg)](https://github.com/acme/tidyfiles/actions)
[![License: MIT](https://img.shields.io/badge/License-MIT-yellow.svg)](https://opensource.org/licenses/MIT)

> A fast command-line tool that sorts your **Downloads** folder into tidy sub-folders by type and date. :sparkles:

[Docs](https://tidyfiles.dev) · [Changelog](CHANGELOG.md) · [Discord][discord]

## Features

- **Fast** — sorts 10,000 files in under a second
- **Safe**: dry-run mode shows every move before it happens
- 🎯 **Rules** - write your own rules in a \`tidy.yml\` file
- Works on Linux, macOS and Windows
- Undo the last run with \`tidy undo\`

## Installation

\`\`\`bash
npm install -g tidyfiles
\`\`\`

Or with Homebrew:

\`\`\`sh
brew install tidyfiles
\`\`\`

## Usage

Run it in any folder:

\`\`\`console
$ tidy ~/Downloads --dry-run
\`\`\`

| Option | Description |
|---|---|
| \`--dry-run\` | show moves only |
| \`--by-date\` | group by month |
| \`--keep <days>\` | leave files newer than this many days (default 7) |

## Contributing

Pull requests are welcome. For major changes, please open an issue first.

## License

[MIT](LICENSE) © Acme

[discord]: https://discord.gg/xyz
`,
  product: { name: "tidyfiles", description: "Sort your downloads", repositoryUrl: "https://github.com/acme/tidyfiles", topics: ["cli", "files"], defaultBranch: "main" },
  expect: { name: "tidyfiles", tables: 1, numbers: ["10,000"], installCommand: "npm install -g tidyfiles", questions: 0, heroImage: null, download: null },
};

/** A Rust CLI whose README is mostly a benchmark table and a demo GIF. */
export const ripfindCli: ReadmeFixture = {
  id: "ripfind-cli",
  shape: "CLI tool with benchmarks",
  readme: `# ripfind

ripfind searches file names across huge trees, respecting your \`.gitignore\`, and is 4 times faster than \`find\`.

![ripfind searching the Linux kernel tree in a terminal](https://raw.githubusercontent.com/fastfs/ripfind/main/assets/demo.gif)

## Benchmarks

Searching the Linux kernel source (78,000 files) on a laptop with an NVMe disk:

| Command | Mean time | Files matched |
|---|---|---|
| \`ripfind '\\.rs$'\` | 81 ms | 1,204 |
| \`fd '\\.rs$'\` | 96 ms | 1,204 |
| \`find . -name '*.rs'\` | 342 ms | 1,204 |

## Installing

With Cargo:

\`\`\`
cargo install ripfind
\`\`\`

Pre-built binaries for Linux, macOS and Windows are on the [releases page](https://github.com/fastfs/ripfind/releases).

## License

Dual-licensed under MIT or the Apache License 2.0.
`,
  product: { name: "ripfind", description: "Find files, fast", repositoryUrl: "https://github.com/fastfs/ripfind", topics: ["rust", "cli", "search"], defaultBranch: "main" },
  expect: {
    name: "ripfind",
    tables: 1,
    numbers: ["78,000", "81 ms", "342 ms"],
    installCommand: "cargo install ripfind",
    questions: 0,
    heroImage: "https://raw.githubusercontent.com/fastfs/ripfind/main/assets/demo.gif",
    // "Pre-built binaries … are on the [releases page](…)": its download.
    download: "https://github.com/fastfs/ripfind/releases",
  },
};

/** An image converter: lists inside sentences, a long headline, numbered and nested lists. */
export const pixmillConverter: ReadmeFixture = {
  id: "pixmill-converter",
  shape: "image-format converter",
  readme: `# Pixmill

Pixmill is a batch image tool that can resize, crop, convert and optimize JPEG, PNG, WebP, TIFF and GIF files from the command line or a watch folder.

## What it does

- Format conversion between JPEG, PNG, WebP, TIFF and GIF (lossless where the target format allows it)
- Resizing to fixed sizes or percentages, with sharpening tuned for each size
- Metadata stripping: EXIF, IPTC and XMP are removed by default, GPS tags always
- Watch folders (new files are converted as soon as they are written)

## Getting started

1. Download the archive for your system.
2. Unpack it and put \`pixmill\` on your PATH.
3. Convert a folder:
   - \`pixmill convert photos/ --to webp\`
   - \`pixmill resize photos/ --width 1600\`

## Formats

| Format | Read | Write | Max size |
|---|---|---|---|
| JPEG | yes | yes | 65,535 px |
| PNG | yes | yes | 2^31 px |
| WebP | yes | yes | 16,383 px |
| TIFF | yes | no | 4 GB |
| GIF | yes | yes | 65,535 px |
`,
  product: { name: "pixmill", description: "", repositoryUrl: "https://github.com/imgtools/pixmill", topics: ["images"], defaultBranch: "main" },
  expect: { name: "Pixmill", tables: 1, numbers: ["65,535 px", "16,383 px", "4 GB"], installCommand: null, questions: 0, heroImage: null, download: null },
};
