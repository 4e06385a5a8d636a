import type { ReadmeFixture } from "./fixture.js";

/** A TypeScript library: badges, bold lead-ins, install and usage, question headings. The README writes "Quark". */
export const quarkLibrary: ReadmeFixture = {
  id: "quark-library",
  shape: "library",
  readme: `# Quark

[![npm](https://img.shields.io/npm/v/quark.svg)](https://www.npmjs.com/package/quark)
[![CI](https://github.com/quarkjs/quark/actions/workflows/ci.yml/badge.svg)](https://github.com/quarkjs/quark/actions)
[![bundle size](https://img.shields.io/bundlephobia/minzip/quark)](https://bundlephobia.com/package/quark)

Quark is a 2 kB state container for TypeScript apps. It keeps your state in one place and tells your components when it changes.

## Features

- **Tiny** — 2 kB minified and gzipped, with zero dependencies.
- **Typed**: every selector and action is inferred from your store, so you never write a type twice.
- **Framework-agnostic** — bindings for React, Vue and Svelte (each under 500 bytes).
- **Devtools** — time-travel debugging through the Redux DevTools extension.

## Installation

\`\`\`bash
npm install quark
\`\`\`

## Usage

Create a store and subscribe to it:

\`\`\`ts
import { createStore } from "quark";

const store = createStore({ count: 0 });
store.subscribe((state) => console.log(state.count));
store.set((state) => ({ count: state.count + 1 }));
\`\`\`

## FAQ

### Why not Redux?

Redux is great for large teams with strict conventions. Quark is for apps that want the same ideas with less code.

### Does it support server-side rendering?

Yes. Create one store per request and pass its state to the client.

## License

MIT © Quark contributors
`,
  product: { name: "quark", description: "Tiny state container", repositoryUrl: "https://github.com/quarkjs/quark", topics: ["state", "typescript"], defaultBranch: "main" },
  expect: { name: "Quark", tables: 0, numbers: ["2 kB", "500 bytes"], installCommand: "npm install quark", questions: 2, heroImage: null, download: null },
};

/** A web framework: an HTML header with a centred logo, badges, a numbered quick start, nested lists and a <details> FAQ. */
export const veloxFramework: ReadmeFixture = {
  id: "velox-framework",
  shape: "web framework",
  readme: `<p align="center">
  <a href="https://velox.dev"><img src="docs/assets/velox-logo.svg" alt="Velox logo" width="180"></a>
</p>

<h1 align="center">Velox</h1>

<p align="center">
  <a href="https://github.com/velox/velox/actions"><img src="https://github.com/velox/velox/actions/workflows/test.yml/badge.svg" alt="Tests"></a>
  <a href="https://pypi.org/project/velox"><img src="https://img.shields.io/pypi/v/velox.svg" alt="PyPI"></a>
  <a href="https://discord.gg/velox"><img src="https://img.shields.io/discord/1234.svg" alt="Discord"></a>
</p>

Velox is an async web framework for Python with typed routes and automatic OpenAPI docs (version 3.1).

![The interactive API docs that Velox generates](docs/assets/openapi-ui.png)

## Highlights

- **Typed routes**: path and query parameters are parsed from your type hints (with clear errors on bad input).
- **Fast**: handles 48,000 requests per second on one core, see the benchmarks below.
- **Batteries included**:
  - sessions and CSRF protection
  - a test client
  - WebSockets

## Quick start

1. Install Velox and an ASGI server:

   \`\`\`bash
   pip install velox uvicorn
   \`\`\`

2. Write \`app.py\`:

   \`\`\`python
   from velox import Velox

   app = Velox()

   @app.get("/hello/{name}")
   async def hello(name: str) -> dict:
       return {"hello": name}
   \`\`\`

3. Run it with \`uvicorn app:app --reload\`.

## Benchmarks

Plain-text responses on an 8-core AMD EPYC server, measured with wrk for 30 seconds.

| Framework | Requests/s | p99 latency |
|-----------|-----------:|------------:|
| Velox 2.1 | 48,210 | 2.4 ms |
| Starlette 0.37 | 44,870 | 2.7 ms |
| Flask 3.0 (gunicorn) | 9,340 | 11.8 ms |

## FAQ

<details>
<summary>Can I use it with Django's ORM?</summary>

Yes. Call Django's setup before you create the app, and run ORM queries in a thread with \`sync_to_async\`.

</details>

<details>
<summary>Is Velox production-ready?</summary>

Velox 2 has been stable since March 2024 and runs in production at several companies.

</details>

## License

Velox is released under the BSD 3-Clause License.
`,
  product: { name: "velox", description: "Async Python web framework", repositoryUrl: "https://github.com/velox/velox", topics: ["python", "web-framework", "asgi"], defaultBranch: "main" },
  expect: {
    name: "Velox",
    tables: 1,
    numbers: ["48,000", "48,210", "2.4 ms"],
    installCommand: "pip install velox uvicorn",
    questions: 2,
    heroImage: "https://raw.githubusercontent.com/velox/velox/main/docs/assets/openapi-ui.png",
    download: null,
  },
};

/** A data library with a comparison table and bold question lines outside an FAQ section. */
export const tabulaLibrary: ReadmeFixture = {
  id: "tabula-library",
  shape: "library with a comparison table",
  readme: `tabula
======

Read CSV, Excel and Parquet files into typed Python records, 5 to 10 times faster than pandas for files under 1 GB.

Why tabula?
-----------

Most scripts read a table, check a few columns and write it back. tabula does that without loading a DataFrame library.

| | tabula | pandas | csv module |
|---|---|---|---|
| Import time | 12 ms | 480 ms | 1 ms |
| Typed records | yes | no | no |
| Excel and Parquet | yes | yes | no |

Install
-------

\`\`\`
pip install tabula-records
\`\`\`

Notes
-----

**Does it need pandas?**
No. tabula has no required dependencies; Parquet support uses pyarrow when it is installed.

**Which Python versions are supported?**
Python 3.9 to 3.13.
`,
  product: { name: "tabula", description: "", repositoryUrl: "https://github.com/dataroom/tabula", topics: [], defaultBranch: "main" },
  expect: { name: "tabula", tables: 1, numbers: ["12 ms", "480 ms", "1 GB"], installCommand: "pip install tabula-records", questions: 3, heroImage: null, download: null },
};
