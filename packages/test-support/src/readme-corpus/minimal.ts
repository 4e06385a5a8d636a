import type { ReadmeFixture } from "./fixture.js";

/** A minimal README: a title and one sentence. */
export const padMinimal: ReadmeFixture = {
  id: "pad-minimal",
  shape: "minimal",
  readme: `# pad

Pads a string to a given width, on the left or on the right.
`,
  product: { name: "pad", description: "", repositoryUrl: "https://github.com/tiny/pad", topics: [], defaultBranch: "main" },
  expect: { name: "pad", tables: 0, numbers: [], installCommand: null, questions: 0, heroImage: null, download: null },
};

/** A minimal README with a usage block and a repository description, but no install section. */
export const dotfilesMinimal: ReadmeFixture = {
  id: "dotfiles-minimal",
  shape: "minimal with usage",
  readme: `# Dotfiles

My shell, editor and terminal settings. They are tuned for macOS 14 and zsh.

## Usage

\`\`\`sh
./bootstrap.sh --link
\`\`\`

Existing files are moved to \`~/.dotfiles-backup\` first.
`,
  product: { name: "dotfiles", description: "Personal configuration files", repositoryUrl: "https://gitlab.com/jane/dotfiles", topics: [], defaultBranch: "trunk" },
  expect: { name: "Dotfiles", tables: 0, numbers: ["14"], installCommand: null, questions: 0, heroImage: null, download: null },
};
