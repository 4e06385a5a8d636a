import { README_CORPUS } from "@reposite/test-support";

/** Realistic READMEs for the reader and author tests. */

/** The corpus's CLI README (badges, a navigation line, bold leads three ways, an options table): one copy for every test. */
export const CLI_README = README_CORPUS.find((fixture) => fixture.id === "tidyfiles-cli")!.readme;

export const LIBRARY_README = `Tiny Schema
===========

Tiny Schema validates JavaScript objects with composable, typed rules. It has no dependencies and weighs 2 kB.

API
---

### \`object(shape)\`

Creates a validator for objects.

\`\`\`ts
import { object, string } from "tiny-schema";

const User = object({ name: string() });
User.parse({ name: "Ada" });
\`\`\`

### \`string()\`

Accepts strings.

Getting started
---------------

Install it with \`npm install tiny-schema\` and import what you need.

FAQ
---

**Why not zod?** Zod is great; Tiny Schema is for bundles where every kilobyte counts.

**Does it work in the browser?**

Yes. It runs anywhere modern JavaScript runs.

### Can I use it with TypeScript?

Yes, types are inferred from the schema.

License
-------

Released under the Apache License 2.0.
`;

export const WEBAPP_README = `<p align="center">
  <img src="docs/logo.png" width="120" alt="Plantbook logo">
</p>
<h1 align="center">Plantbook</h1>
<p align="center"><b>Keep your houseplants alive: watering reminders, light tips and a journal for every plant.</b></p>

<p align="center">
  <a href="https://plantbook.app"><img src="https://img.shields.io/badge/demo-live-green"></a>
</p>

![Screenshot of the plant list](docs/screenshot.png)

## What it does

Plantbook is a small web app for people with more plants than memory.

<details>
<summary>Is my data private?</summary>

Everything is stored in your own database; nothing is sent to third parties.

</details>

## Highlights

<ul>
  <li><b>Reminders</b> by e-mail when a plant needs water</li>
  <li>Photo journal for every plant</li>
  <li>Works on phones</li>
</ul>

## Running locally

1. Clone the repository
2. Start it:

   \`\`\`bash
   docker compose up
   \`\`\`

3. Open http://localhost:3000

## Tech stack

Next.js, Prisma and PostgreSQL.
`;

export const EMPTY_README = `# thing

TODO
`;

export const RST_README = `==========
pyfetcher
==========

.. image:: https://img.shields.io/pypi/v/pyfetcher.svg
   :target: https://pypi.org/project/pyfetcher

.. |build| image:: https://ci.example.com/badge.svg

pyfetcher downloads files in parallel with retries, progress bars and checksums. See the \`documentation <https://pyfetcher.readthedocs.io>\`_ for details.

Features
--------

* Parallel downloads with a configurable pool
* Automatic retries with exponential backoff
* SHA-256 checksum verification

Installation
------------

Install from PyPI::

    pip install pyfetcher

Usage
-----

.. code-block:: python

    from pyfetcher import fetch
    fetch(["https://example.com/a.zip"], workers=4)

License
-------

BSD 3-Clause License. See \`\`LICENSE\`\`.
`;

export const ASCIIDOC_README = `= Ledgerly
:toc:

Ledgerly is a plain-text accounting tool for small teams.

== Installation

[source,bash]
----
cargo install ledgerly
----

== Usage

----
ledgerly report --month 2024-05
----
`;
