import { access, readdir } from "node:fs/promises";
import { imageStamp } from "./docker.js";
import { imageFromHostFiles } from "./host-files-image.js";

/**
 * A Python image for tests (no registry is reachable for `python:`): the interpreter, its standard
 * library (sqlite3 and ssl included) and pip, so `python -m venv` and `pip install` run as in `python:` images.
 */
export const LOCAL_PYTHON_IMAGE = "reposite-test/python:local";

const RECIPE = "python-2";
/** The C libraries the interpreter and its sqlite3, zlib, ctypes, ssl (pip's downloads) and archive modules link against. */
const LIBRARIES = ["libc.so.6", "libm.so.6", "libsqlite3.so.0", "libz.so.1", "libffi.so.8", "libexpat.so.1", "libssl.so.3", "libcrypto.so.3", "libbz2.so.1.0", "liblzma.so.5"].map((name) => `lib/x86_64-linux-gnu/${name}`);

/**
 * Makes `reposite-test/python:local` unless this machine has it: the busybox base image plus a
 * CPython this machine has (pyenv's, under /root/.pyenv/versions/3.1x), as `/usr/local/bin/python3`
 * with its standard library (no tests), pip and ensurepip's bundled wheel (what `python -m venv`
 * installs into a new environment), and `pip` on the PATH. Returns null when there is none.
 */
export async function buildLocalPythonImage(): Promise<string | null> {
  if ((await imageStamp(LOCAL_PYTHON_IMAGE)) === RECIPE) return LOCAL_PYTHON_IMAGE;
  const versions = await readdir("/root/.pyenv/versions").catch(() => [] as string[]);
  const version = versions.filter((name) => /^3\.1[0-9]\.\d+$/.test(name)).sort().pop();
  if (!version) return null;
  const prefix = `root/.pyenv/versions/${version}`;
  const minor = version.split(".").slice(0, 2).join(".");
  const libraries = [];
  for (const library of LIBRARIES) if (await access(`/${library}`).then(() => true, () => false)) libraries.push(library);
  return imageFromHostFiles({
    tag: LOCAL_PYTHON_IMAGE,
    stamp: RECIPE,
    paths: [`${prefix}/bin/python${minor}`, `${prefix}/lib/python${minor}`, `${prefix}/lib/libpython${minor}.so.1.0`, "lib64/ld-linux-x86-64.so.2", "etc/ssl/certs/ca-certificates.crt", ...libraries],
    // Only pip from site-packages: this machine's own .pth files are not the image's.
    exclude: ["test", "site-packages/*.pth", "idlelib", "tkinter", "turtledemo", "__pycache__"].map((name) => `${prefix}/lib/python${minor}/${name}`),
    steps: [
      // Moved out of /root (the app's user cannot enter it); libpython where the loader looks.
      `RUN mkdir -p /usr/local/bin /usr/local/lib && mv /${prefix}/lib/python${minor} /usr/local/lib/ && mv /${prefix}/bin/python${minor} /usr/local/bin/ && mv /${prefix}/lib/libpython${minor}.so.1.0 /lib/x86_64-linux-gnu/ && rm -rf /root/.pyenv && ln -s python${minor} /usr/local/bin/python3 && ln -s python${minor} /usr/local/bin/python`,
      // As `python:` images have it (pyenv's own pip script names pyenv's interpreter).
      `RUN printf '#!/bin/sh\\nexec python${minor} -m pip "$@"\\n' > /usr/local/bin/pip && chmod 755 /usr/local/bin/pip && ln -s pip /usr/local/bin/pip3`,
    ],
  });
}
