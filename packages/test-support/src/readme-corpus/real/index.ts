import { readFileSync } from "node:fs";

/**
 * Real READMEs of well-known public projects, kept as their maintainers wrote them (issue 23): the
 * test of what the README author makes of READMEs nobody wrote for it. Each file is the README at
 * the named commit, unchanged; its license is the project's (see SOURCES.md).
 */
export interface RealReadme {
  /** Short id for test names; also the file's name. */
  id: string;
  /** What kind of project and README it is (why it is in the corpus). */
  kind: string;
  /** Where the README comes from: `owner/name@commit`, path, and the project's license (SPDX where there is one). */
  source: { repo: string; commit: string; path: string; license: string };
  /** The file in this folder. */
  file: string;
  /** The repository facts a generation passes; the description and topics as GitHub shows them. */
  product: { name: string; description: string; repositoryUrl: string; topics: string[]; defaultBranch: string };
  /**
   * The README's primary destinations (homepage, docs, download, demo), any of which the landing page
   * must link: web addresses the README itself links, compared without scheme, `www.` and trailing
   * slash, as prefixes. Empty when the README links none (Flask's names only its libraries).
   */
  destinations: string[];
}

const ENTRIES: RealReadme[] = [
  {
    id: "ripgrep",
    kind: "CLI tool (Rust), hard-wrapped, benchmark tables",
    source: { repo: "BurntSushi/ripgrep", commit: "3fce3b5bb0236da2df6d99672afb8a719642eca7", path: "README.md", license: "Unlicense OR MIT" },
    file: "ripgrep.md",
    product: { name: "ripgrep", description: "ripgrep recursively searches directories for a regex pattern while respecting your gitignore", repositoryUrl: "https://github.com/BurntSushi/ripgrep", topics: ["rust", "search", "grep", "regex", "cli"], defaultBranch: "master" },
    destinations: ["https://github.com/BurntSushi/ripgrep/releases"],
  },
  {
    id: "bat",
    kind: "CLI tool (Rust), centred HTML header, language switcher, long install section",
    source: { repo: "sharkdp/bat", commit: "2ba8db9c14e5794572f5ea338c2b90404c9769cb", path: "README.md", license: "Apache-2.0 OR MIT" },
    file: "bat.md",
    product: { name: "bat", description: "A cat(1) clone with wings.", repositoryUrl: "https://github.com/sharkdp/bat", topics: ["rust", "command-line", "syntax-highlighting", "terminal", "cli"], defaultBranch: "master" },
    destinations: ["https://github.com/sharkdp/bat/releases"],
  },
  {
    id: "fd",
    kind: "CLI tool (Rust), translations line, benchmark",
    source: { repo: "sharkdp/fd", commit: "ee20f426ddf338ac7ead5c5f00ea49258005caaf", path: "README.md", license: "Apache-2.0 OR MIT" },
    file: "fd.md",
    product: { name: "fd", description: "A simple, fast and user-friendly alternative to 'find'", repositoryUrl: "https://github.com/sharkdp/fd", topics: ["rust", "command-line", "search", "filesystem", "cli"], defaultBranch: "master" },
    destinations: ["https://github.com/sharkdp/fd/releases"],
  },
  {
    id: "fzf",
    kind: "terminal tool (Go), sponsors, long table of contents",
    source: { repo: "junegunn/fzf", commit: "956562daaa82ddf55ea8f7aeab56883377b742c6", path: "README.md", license: "MIT" },
    file: "fzf.md",
    product: { name: "fzf", description: ":cherry_blossom: A command-line fuzzy finder", repositoryUrl: "https://github.com/junegunn/fzf", topics: ["go", "cli", "fzf", "vim", "neovim", "bash", "zsh", "tmux"], defaultBranch: "master" },
    destinations: ["https://github.com/junegunn/fzf/releases"],
  },
  {
    id: "yt-dlp",
    kind: "CLI tool (Python), very long README, HTML header, TOC",
    source: { repo: "yt-dlp/yt-dlp", commit: "81ecd58b1394793e6da9998cc19fdb45657f1685", path: "README.md", license: "Unlicense" },
    file: "yt-dlp.md",
    product: { name: "yt-dlp", description: "A feature-rich command-line audio/video downloader", repositoryUrl: "https://github.com/yt-dlp/yt-dlp", topics: ["youtube-dl", "youtube", "python", "cli", "downloader", "video"], defaultBranch: "master" },
    destinations: ["https://github.com/yt-dlp/yt-dlp/wiki/Installation", "https://github.com/yt-dlp/yt-dlp/releases"],
  },
  {
    id: "curl",
    kind: "CLI tool and library (C), short, link list",
    source: { repo: "curl/curl", commit: "5c61e168698a72b87437d58ed728bcdea6d5db42", path: "README.md", license: "curl" },
    file: "curl.md",
    product: { name: "curl", description: "A command line tool and library for transferring data with URL syntax", repositoryUrl: "https://github.com/curl/curl", topics: ["c", "http", "curl", "libcurl", "ftp"], defaultBranch: "master" },
    destinations: ["https://curl.se"],
  },
  {
    id: "lazygit",
    kind: "terminal UI (Go), sponsor banner, GIF demos, TOC",
    source: { repo: "jesseduffield/lazygit", commit: "ea916395469808d37d726ae183fa40fd575a9d8a", path: "README.md", license: "MIT" },
    file: "lazygit.md",
    product: { name: "lazygit", description: "simple terminal UI for git commands", repositoryUrl: "https://github.com/jesseduffield/lazygit", topics: ["git", "terminal", "go", "cli", "tui"], defaultBranch: "master" },
    destinations: ["https://github.com/jesseduffield/lazygit/releases"],
  },
  {
    id: "tmux",
    kind: "terminal multiplexer (C), plain-text hard-wrapped README",
    source: { repo: "tmux/tmux", commit: "c1f947a3c5bc72a40c32dead736f84c4628791ec", path: "README", license: "ISC" },
    file: "tmux.txt",
    product: { name: "tmux", description: "tmux source code", repositoryUrl: "https://github.com/tmux/tmux", topics: ["tmux", "terminal"], defaultBranch: "master" },
    destinations: ["https://github.com/tmux/tmux/wiki"],
  },
  {
    id: "ohmyzsh",
    kind: "shell framework, centred header, long TOC",
    source: { repo: "ohmyzsh/ohmyzsh", commit: "830a5bcfd29fd577fdcd5f3b8e98cbaf973421fa", path: "README.md", license: "MIT" },
    file: "ohmyzsh.md",
    product: { name: "ohmyzsh", description: "A delightful community-driven framework for managing your zsh configuration.", repositoryUrl: "https://github.com/ohmyzsh/ohmyzsh", topics: ["shell", "zsh", "oh-my-zsh", "terminal", "plugins", "themes"], defaultBranch: "master" },
    destinations: ["https://ohmyz.sh"],
  },
  {
    id: "express",
    kind: "web framework (Node.js), badges, features list, team lists",
    source: { repo: "expressjs/express", commit: "a3714473feb3d2908add734d340e7755fd85e0a3", path: "Readme.md", license: "MIT" },
    file: "express.md",
    product: { name: "express", description: "Fast, unopinionated, minimalist web framework for node.", repositoryUrl: "https://github.com/expressjs/express", topics: ["nodejs", "javascript", "express", "server"], defaultBranch: "master" },
    destinations: ["https://expressjs.com"],
  },
  {
    id: "gin",
    kind: "web framework (Go), TOC, benchmarks link",
    source: { repo: "gin-gonic/gin", commit: "dcaa4296d111981ffb31ac3eba90bb63e1eb5ab9", path: "README.md", license: "MIT" },
    file: "gin.md",
    product: { name: "gin", description: "Gin is a high-performance HTTP web framework written in Go.", repositoryUrl: "https://github.com/gin-gonic/gin", topics: ["go", "framework", "middleware", "performance", "router", "server"], defaultBranch: "master" },
    destinations: ["https://gin-gonic.com", "https://pkg.go.dev/github.com/gin-gonic/gin"],
  },
  {
    id: "fastapi",
    kind: "Python framework, HTML-heavy, sponsors, terminal animations",
    source: { repo: "fastapi/fastapi", commit: "c3f316b7e814667e8ee81e03a7330d00ee61e45c", path: "README.md", license: "MIT" },
    file: "fastapi.md",
    product: { name: "fastapi", description: "FastAPI framework, high performance, easy to learn, fast to code, ready for production", repositoryUrl: "https://github.com/fastapi/fastapi", topics: ["python", "json", "api", "framework", "async", "pydantic", "openapi"], defaultBranch: "master" },
    destinations: ["https://fastapi.tiangolo.com"],
  },
  {
    id: "flask",
    kind: "Python framework, short, reference-style links",
    source: { repo: "pallets/flask", commit: "2ac89889f4cc330eabd50f295dcef02828522c69", path: "README.md", license: "BSD-3-Clause" },
    file: "flask.md",
    product: { name: "flask", description: "The Python micro framework for building web applications.", repositoryUrl: "https://github.com/pallets/flask", topics: ["python", "flask", "wsgi", "web-framework", "jinja", "werkzeug"], defaultBranch: "main" },
    destinations: [],
  },
  {
    id: "requests",
    kind: "Python library, short, feature list",
    source: { repo: "psf/requests", commit: "1f6589ec3a1ee910f9a65cc3ceac60b26677bc0e", path: "README.md", license: "Apache-2.0" },
    file: "requests.md",
    product: { name: "requests", description: "A simple, yet elegant, HTTP library.", repositoryUrl: "https://github.com/psf/requests", topics: ["python", "http", "requests", "client"], defaultBranch: "main" },
    destinations: ["https://requests.readthedocs.io"],
  },
  {
    id: "serde",
    kind: "Rust library, code samples, reference links",
    source: { repo: "serde-rs/serde", commit: "1023d077510b4aef36a41ef56fdb7798568a2654", path: "README.md", license: "Apache-2.0 OR MIT" },
    file: "serde.md",
    product: { name: "serde", description: "Serialization framework for Rust", repositoryUrl: "https://github.com/serde-rs/serde", topics: ["rust", "serde", "serialization", "derive", "no-std"], defaultBranch: "master" },
    destinations: ["https://serde.rs", "https://docs.rs/serde"],
  },
  {
    id: "cobra",
    kind: "Go library, centred logo, users list",
    source: { repo: "spf13/cobra", commit: "adbc8813901bba65827259daa8e22ff94ec1f30e", path: "README.md", license: "Apache-2.0" },
    file: "cobra.md",
    product: { name: "cobra", description: "A Commander for modern Go CLI interactions", repositoryUrl: "https://github.com/spf13/cobra", topics: ["go", "cli", "golang", "posix", "command"], defaultBranch: "main" },
    destinations: ["https://cobra.dev", "https://pkg.go.dev/github.com/spf13/cobra"],
  },
  {
    id: "pnpm",
    kind: "package manager, language switcher, sponsor tables",
    source: { repo: "pnpm/pnpm", commit: "36e5ae6ac8d03743442f083680fa3015e4a774b3", path: "README.md", license: "MIT" },
    file: "pnpm.md",
    product: { name: "pnpm", description: "Fast, disk space efficient package manager", repositoryUrl: "https://github.com/pnpm/pnpm", topics: ["javascript", "npm", "package-manager", "nodejs", "monorepo"], defaultBranch: "main" },
    destinations: ["https://pnpm.io"],
  },
  {
    id: "uv",
    kind: "package manager (Rust for Python), highlights list, benchmark picture",
    source: { repo: "astral-sh/uv", commit: "26a9dd4b2125bc271b47855e1fa0c49af3365db5", path: "README.md", license: "Apache-2.0 OR MIT" },
    file: "uv.md",
    product: { name: "uv", description: "An extremely fast Python package and project manager, written in Rust.", repositoryUrl: "https://github.com/astral-sh/uv", topics: ["python", "packaging", "pip", "virtualenv", "rust"], defaultBranch: "main" },
    destinations: ["https://docs.astral.sh/uv"],
  },
  {
    id: "pip",
    kind: "package manager (Python), reStructuredText",
    source: { repo: "pypa/pip", commit: "6d309205789d368b2749d93fd6193d584811efd5", path: "README.rst", license: "MIT" },
    file: "pip.rst",
    product: { name: "pip", description: "The Python package installer", repositoryUrl: "https://github.com/pypa/pip", topics: ["python", "pip", "packaging"], defaultBranch: "main" },
    destinations: ["https://pip.pypa.io"],
  },
  {
    id: "localsend",
    kind: "desktop app (Flutter), download table with store links, translations",
    source: { repo: "localsend/localsend", commit: "af0416be50770a97760f7070684bc667b759a15c", path: "README.md", license: "Apache-2.0" },
    file: "localsend.md",
    product: { name: "localsend", description: "An open-source cross-platform alternative to AirDrop", repositoryUrl: "https://github.com/localsend/localsend", topics: ["flutter", "dart", "file-sharing", "cross-platform", "airdrop"], defaultBranch: "main" },
    destinations: ["https://localsend.org", "https://github.com/localsend/localsend/releases"],
  },
  {
    id: "tauri",
    kind: "desktop app framework (Rust), platforms table",
    source: { repo: "tauri-apps/tauri", commit: "a8105eccb2122f003b4a36bbfb747998f53c5f10", path: "README.md", license: "Apache-2.0 OR MIT" },
    file: "tauri.md",
    product: { name: "tauri", description: "Build smaller, faster, and more secure desktop and mobile applications with a web frontend.", repositoryUrl: "https://github.com/tauri-apps/tauri", topics: ["rust", "desktop", "gui", "webview", "native-app", "tauri"], defaultBranch: "dev" },
    destinations: ["https://tauri.app"],
  },
  {
    id: "uptime-kuma",
    kind: "self-hosted monitoring, demo link, sponsors, screenshots",
    source: { repo: "louislam/uptime-kuma", commit: "6398a9581d1c3c427a7536559f47ccf45dac08b4", path: "README.md", license: "MIT" },
    file: "uptime-kuma.md",
    product: { name: "uptime-kuma", description: "A fancy self-hosted monitoring tool", repositoryUrl: "https://github.com/louislam/uptime-kuma", topics: ["monitoring", "uptime", "self-hosted", "docker", "webapp"], defaultBranch: "master" },
    destinations: ["https://demo.kuma.pet", "https://github.com/louislam/uptime-kuma/wiki"],
  },
  {
    id: "jellyfin",
    kind: "self-hosted media server, centred HTML header, badge rows",
    source: { repo: "jellyfin/jellyfin", commit: "c3ed1407ca698b0905de99da87b67415e6a62dbd", path: "README.md", license: "GPL-2.0" },
    file: "jellyfin.md",
    product: { name: "jellyfin", description: "The Free Software Media System - Server Backend & API", repositoryUrl: "https://github.com/jellyfin/jellyfin", topics: ["media", "streaming", "dotnet", "csharp", "self-hosted"], defaultBranch: "master" },
    destinations: ["https://jellyfin.org"],
  },
  {
    id: "syncthing",
    kind: "self-hosted sync, numbered goals, reference links, hard-wrapped",
    source: { repo: "syncthing/syncthing", commit: "328d910aee822178f55442c76bc7e35ce34d68cc", path: "README.md", license: "MPL-2.0" },
    file: "syncthing.md",
    product: { name: "syncthing", description: "Open Source Continuous File Synchronization", repositoryUrl: "https://github.com/syncthing/syncthing", topics: ["go", "synchronization", "p2p", "file-sharing"], defaultBranch: "main" },
    destinations: ["https://syncthing.net", "https://docs.syncthing.net"],
  },
  {
    id: "pocketbase",
    kind: "backend in one file (Go), feature list after a colon",
    source: { repo: "pocketbase/pocketbase", commit: "5d217ddb50cb144d80a5d0b0bdf11b52b2c3e457", path: "README.md", license: "MIT" },
    file: "pocketbase.md",
    product: { name: "pocketbase", description: "Open Source realtime backend in 1 file", repositoryUrl: "https://github.com/pocketbase/pocketbase", topics: ["go", "golang", "backend", "realtime", "authentication", "sqlite"], defaultBranch: "master" },
    destinations: ["https://pocketbase.io", "https://github.com/pocketbase/pocketbase/releases"],
  },
  {
    id: "appwrite",
    kind: "backend platform, language switcher, HTML header, TOC",
    source: { repo: "appwrite/appwrite", commit: "0cefd0615350e1914a29caeef3342fd620a60045", path: "README.md", license: "BSD-3-Clause" },
    file: "appwrite.md",
    product: { name: "appwrite", description: "Appwrite - complete cloud infrastructure for your web, mobile and AI apps.", repositoryUrl: "https://github.com/appwrite/appwrite", topics: ["backend", "docker", "self-hosted", "firebase", "baas", "api"], defaultBranch: "main" },
    destinations: ["https://appwrite.io", "https://cloud.appwrite.io"],
  },
  {
    id: "redis",
    kind: "database (C), long TOC, build instructions",
    source: { repo: "redis/redis", commit: "4f8cdc2a1ea53e42955af758aabffee67cb455dd", path: "README.md", license: "RSALv2 OR SSPLv1 OR AGPL-3.0" },
    file: "redis.md",
    product: { name: "redis", description: "For developers, who are building real-time data-driven applications, Redis is the preferred, fastest, and most feature-rich cache, data structure server, and document and vector query engine.", repositoryUrl: "https://github.com/redis/redis", topics: ["database", "cache", "key-value", "redis", "nosql"], defaultBranch: "unstable" },
    destinations: ["https://redis.io"],
  },
  {
    id: "duckdb",
    kind: "analytical database (C++), centred logo",
    source: { repo: "duckdb/duckdb", commit: "044a04a7cd39e6e8235f756597ae42dde084e5e5", path: "README.md", license: "MIT" },
    file: "duckdb.md",
    product: { name: "duckdb", description: "DuckDB is an analytical in-process SQL database management system", repositoryUrl: "https://github.com/duckdb/duckdb", topics: ["sql", "database", "analytics", "olap", "embedded-database"], defaultBranch: "main" },
    destinations: ["https://duckdb.org", "https://github.com/duckdb/duckdb/releases"],
  },
  {
    id: "surrealdb",
    kind: "database (Rust), HTML-heavy, dark/light logos, TOC",
    source: { repo: "surrealdb/surrealdb", commit: "a97d3af85d79aa7101238bbe389d211284e7cd98", path: "README.md", license: "BUSL-1.1" },
    file: "surrealdb.md",
    product: { name: "surrealdb", description: "A scalable, distributed, collaborative, document-graph database, for the realtime web", repositoryUrl: "https://github.com/surrealdb/surrealdb", topics: ["database", "rust", "graph-database", "realtime"], defaultBranch: "main" },
    destinations: ["https://surrealdb.com"],
  },
  {
    id: "umami",
    kind: "self-hosted analytics (Next.js), centred header, install steps",
    source: { repo: "umami-software/umami", commit: "c0ea3aefbee7a3429ee2f824b06dc4a9dbe0b7e1", path: "README.md", license: "MIT" },
    file: "umami.md",
    product: { name: "umami", description: "Umami is a modern, privacy-focused alternative to Google Analytics.", repositoryUrl: "https://github.com/umami-software/umami", topics: ["analytics", "web-analytics", "privacy", "self-hosted", "nextjs"], defaultBranch: "master" },
    destinations: ["https://umami.is", "https://analytics.umami.is"],
  },
  {
    id: "excalidraw",
    kind: "whiteboard app, centred HTML header, link bar, features list",
    source: { repo: "excalidraw/excalidraw", commit: "4872083c044491b6d5c96ae134a75464f96d6831", path: "README.md", license: "MIT" },
    file: "excalidraw.md",
    product: { name: "excalidraw", description: "Virtual whiteboard for sketching hand-drawn like diagrams", repositoryUrl: "https://github.com/excalidraw/excalidraw", topics: ["canvas", "collaboration", "whiteboard", "drawing", "diagrams"], defaultBranch: "master" },
    destinations: ["https://excalidraw.com", "https://docs.excalidraw.com"],
  },
  {
    id: "hoppscotch",
    kind: "API development app, emoji feature list, long",
    source: { repo: "hoppscotch/hoppscotch", commit: "afc2cf181c16e56647b099e5d18cfe55710c6cdd", path: "README.md", license: "MIT" },
    file: "hoppscotch.md",
    product: { name: "hoppscotch", description: "Open source API development ecosystem", repositoryUrl: "https://github.com/hoppscotch/hoppscotch", topics: ["api", "http-client", "rest", "graphql", "websocket", "developer-tools"], defaultBranch: "main" },
    destinations: ["https://hoppscotch.io", "https://docs.hoppscotch.io"],
  },
  {
    id: "prettier",
    kind: "code formatter, centred HTML header, language list",
    source: { repo: "prettier/prettier", commit: "4f84a934201322ca87750e2b9b25baf296da6560", path: "README.md", license: "MIT" },
    file: "prettier.md",
    product: { name: "prettier", description: "Prettier is an opinionated code formatter.", repositoryUrl: "https://github.com/prettier/prettier", topics: ["javascript", "typescript", "css", "formatter", "prettier"], defaultBranch: "main" },
    destinations: ["https://prettier.io"],
  },
  {
    id: "scrapy",
    kind: "Python framework, reStructuredText",
    source: { repo: "scrapy/scrapy", commit: "11079cb1c85b9e75a39a7269943c69d1a975d485", path: "README.rst", license: "BSD-3-Clause" },
    file: "scrapy.rst",
    product: { name: "scrapy", description: "Scrapy, a fast high-level web crawling & scraping framework for Python.", repositoryUrl: "https://github.com/scrapy/scrapy", topics: ["python", "crawler", "scraping", "web-scraping", "framework"], defaultBranch: "master" },
    destinations: ["https://scrapy.org", "https://docs.scrapy.org"],
  },
  {
    id: "asciidoctor",
    kind: "text processor (Ruby), AsciiDoc",
    source: { repo: "asciidoctor/asciidoctor", commit: "ae5891df10f12dda069abea8a318c9b94d545bee", path: "README.adoc", license: "MIT" },
    file: "asciidoctor.adoc",
    product: { name: "asciidoctor", description: "A fast, open source text processor and publishing toolchain, written in Ruby, for converting AsciiDoc content to HTML 5, DocBook 5, and other formats.", repositoryUrl: "https://github.com/asciidoctor/asciidoctor", topics: ["asciidoc", "asciidoctor", "ruby", "documentation", "publishing"], defaultBranch: "main" },
    destinations: ["https://asciidoctor.org", "https://docs.asciidoctor.org"],
  },
];

/** The corpus, each README read from its file. */
export const REAL_READMES: (RealReadme & { readme: string })[] = ENTRIES.map((entry) => ({
  ...entry,
  readme: readFileSync(new URL(`./${entry.file}`, import.meta.url), "utf8"),
}));
