import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { buildLocalBaseImages, docker, dockerForTests } from "@reposite/test-support";
import { extract, pack } from "tar-stream";
import { afterAll, describe, expect, it } from "vitest";
import { appendLabels, labelEveryStage, withLabelInstruction } from "../src/build-labels.js";
import { createDockerRuntime } from "../src/index.js";

const engine = await dockerForTests();
const RUN_LABEL = "reposite-test.run";
const run = `labels-${randomBytes(4).toString("hex")}`;

type Entry = { name: string; type?: "file" | "directory" | "symlink"; content?: string; linkname?: string };

/** A tar stream of `entries`, as tar-stream packs it. */
function tarOf(entries: Entry[]): Readable {
  const packer = pack();
  for (const entry of entries) {
    if (entry.type === "symlink") packer.entry({ name: entry.name, type: "symlink", linkname: entry.linkname! });
    else if (entry.type === "directory") packer.entry({ name: entry.name, type: "directory" });
    else packer.entry({ name: entry.name, mode: 0o644 }, entry.content ?? "");
  }
  packer.finalize();
  return Readable.from(packer, { objectMode: false });
}

/** Every file of a tar stream, by name, as text. */
async function filesOf(stream: Readable): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const reader = extract();
  reader.on("entry", (header, entry, next) => {
    const chunks: Buffer[] = [];
    entry.on("data", (chunk) => chunks.push(chunk as Buffer));
    entry.on("end", () => {
      files[header.name] = header.type === "symlink" ? `-> ${header.linkname}` : Buffer.concat(chunks).toString("utf8");
      next();
    });
  });
  const done = new Promise<void>((resolve, reject) => {
    reader.on("finish", () => resolve());
    reader.on("error", reject);
  });
  stream.pipe(reader as never);
  await done;
  return files;
}

describe("a build's labels as one LABEL line", () => {
  it("appends one LABEL line, keys sorted, values quoted so that nothing is expanded", () => {
    const labels = { "dev.reposite.site": "site_1", "a.first": 'has "quotes" and $HOME', back: "c:\\dir" };
    expect(appendLabels("FROM node:22\nCMD [\"node\"]", labels)).toBe(
      'FROM node:22\nCMD ["node"]\nLABEL "a.first"="has \\"quotes\\" and \\$HOME" "back"="c:\\\\dir" "dev.reposite.site"="site_1"\n',
    );
  });

  it("closes a last instruction left open by a line continuation, and honours an escape directive", () => {
    expect(appendLabels("FROM x\nRUN echo a \\\n  # a comment\n\n", { k: "v" })).toBe('FROM x\nRUN echo a \n  # a comment\nLABEL "k"="v"\n');
    expect(appendLabels("# escape=`\nFROM x\nRUN dir `\n", { k: "$v`" })).toBe('# escape=`\nFROM x\nRUN dir \nLABEL "k"="`$v``"\n');
  });

  it("labels every stage right after its FROM, continued FROM lines and escape directives included, FROM words inside other instructions left alone", () => {
    expect(labelEveryStage("FROM a AS build\nRUN echo \\\n  FROM not-a-stage\n\nfrom b\nCOPY --from=build /x /x\n", { k: "v" })).toBe(
      'FROM a AS build\nLABEL "k"="v"\nRUN echo \\\n  FROM not-a-stage\n\nfrom b\nLABEL "k"="v"\nCOPY --from=build /x /x\n',
    );
    expect(labelEveryStage("# escape=`\nFROM `\n  # comment\n  a\nRUN x\n", { k: "$v" })).toBe('# escape=`\nFROM `\n  # comment\n  a\nLABEL "k"="`$v"\nRUN x\n');
    expect(labelEveryStage("FROM a\n", {})).toBe("FROM a\n");
  });

  it("rewrites only the Dockerfile at its path in the context, and says so", async () => {
    const context = tarOf([
      { name: "docker", type: "directory" },
      { name: "docker/app.Dockerfile", content: "FROM x\n" },
      { name: "Dockerfile", content: "FROM y\n" },
      { name: "src/index.js", content: "console.log(1)\n" },
    ]);
    const labelled = withLabelInstruction(context, "docker/app.Dockerfile", { k: "v" })!;
    const files = await filesOf(labelled.context);
    expect(files).toEqual({ docker: "", "docker/app.Dockerfile": 'FROM x\nLABEL "k"="v"\n', Dockerfile: "FROM y\n", "src/index.js": "console.log(1)\n" });
    expect(labelled.labelled()).toBe(true);
  });

  it("leaves a Dockerfile that is a link alone (the caller labels the image afterwards), and refuses labels with line breaks", async () => {
    const labelled = withLabelInstruction(tarOf([{ name: "real.Dockerfile", content: "FROM x\n" }, { name: "Dockerfile", type: "symlink", linkname: "real.Dockerfile" }]), "Dockerfile", { k: "v" })!;
    expect(await filesOf(labelled.context)).toEqual({ "real.Dockerfile": "FROM x\n", Dockerfile: "-> real.Dockerfile" });
    expect(labelled.labelled()).toBe(false);
    expect(withLabelInstruction(tarOf([]), "Dockerfile", { k: "two\nlines" })).toBeNull();
  });

  describe.skipIf(!engine.available)("on the Engine", () => {
    afterAll(async () => {
      const images = (await docker(["images", "-aq", "--filter", `label=${RUN_LABEL}=${run}`])).stdout.split("\n").filter(Boolean);
      if (images.length) await docker(["rmi", "-f", ...new Set(images)]).catch(() => undefined);
    });

    const build = async (name: string, context: Readable, dockerfile = "Dockerfile") => {
      const lines: string[] = [];
      const tag = `reposite-test/${run}-${name}:1`;
      const labels = { [RUN_LABEL]: run, "dev.reposite.role": "app", "dev.reposite.site": "site_labels", "dev.reposite.run": `run_${name}` };
      await createDockerRuntime().buildImage({ context, dockerfile, tag, labels, memoryMb: 128, timeoutMs: 60_000, onLog: (line) => lines.push(line) });
      const inspected = JSON.parse((await docker(["image", "inspect", tag])).stdout) as { Config: { Labels: Record<string, string> } }[];
      return { lines, imageLabels: inspected[0]!.Config.Labels, labels };
    };

    it("labels the image with every label in one build step", async () => {
      const base = await buildLocalBaseImages();
      const { lines, imageLabels, labels } = await build("one-step", tarOf([{ name: "Dockerfile", content: `FROM ${base.busybox}\nCMD ["sh"]\n` }]));
      expect(imageLabels).toMatchObject(labels);
      // FROM, its stage's LABEL (all but the run, so the cache holds from build to build), CMD, and one LABEL step for all four.
      expect(lines.filter((line) => /^Step \d+\/\d+ : /.test(line))).toHaveLength(4);
      const labelSteps = lines.filter((line) => /^Step \d+\/\d+ : LABEL /.test(line));
      expect(labelSteps).toHaveLength(2);
      expect(labelSteps[0]).not.toContain("dev.reposite.run");
      expect(labelSteps[1]).toContain("dev.reposite.run");
    });

    it("labels every image of every stage, and leaves no image but the answered one and its parents", async () => {
      const base = await buildLocalBaseImages();
      const dockerfile = `FROM ${base.busybox} AS build\nRUN echo built > /built\n\nFROM ${base.busybox}\nCOPY --from=build /built /built\nCMD ["sh"]\n`;
      const before = new Set((await docker(["images", "-aq", "--no-trunc"])).stdout.split("\n").filter(Boolean));
      await build("stages", tarOf([{ name: "Dockerfile", content: dockerfile }]));
      const made = (await docker(["images", "-aq", "--no-trunc", "--filter", `label=dev.reposite.site=site_labels`, "--filter", `label=${RUN_LABEL}=${run}`])).stdout
        .split("\n")
        .filter((id) => id && !before.has(id));
      const tagged = JSON.parse((await docker(["image", "inspect", `reposite-test/${run}-stages:1`])).stdout)[0] as { Id: string };
      const chain = (await docker(["history", "-q", "--no-trunc", tagged.Id])).stdout.split("\n").filter((id) => id && id !== "<missing>");
      // The build stage's images (its RUN saw whatever the stage had) are gone; the final stage's stay as its cache.
      expect(new Set(made)).toEqual(new Set(chain.filter((id) => !before.has(id))));
      const history = (await docker(["history", "--no-trunc", "--format", "{{.CreatedBy}}", tagged.Id])).stdout;
      expect(history).not.toContain("echo built");
    });

    it("labels the image when the Dockerfile is a link inside the context", async () => {
      const base = await buildLocalBaseImages();
      const context = tarOf([
        { name: "real.Dockerfile", content: `FROM ${base.busybox}\nCMD ["sh"]\n` },
        { name: "Dockerfile", type: "symlink", linkname: "real.Dockerfile" },
      ]);
      const { imageLabels, labels } = await build("linked", context);
      expect(imageLabels).toMatchObject(labels);
    });
  });
});
