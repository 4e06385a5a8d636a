import { containerRuntimeContract, createMemoryContainerRuntime } from "@reposite/test-support";

// The in-memory runtime core's fast hosting tests use is held to the same contract as Docker.
containerRuntimeContract("memory", async () => {
  const baseImages = { node: "memory/node:22", busybox: "memory/busybox:1" };
  const runtime = createMemoryContainerRuntime({ baseImages: Object.values(baseImages) });
  return {
    runtime,
    baseImages,
    labels: { "reposite-test.run": "memory" },
    publishedHostIps: async (id) => ((await runtime.inspectContainer(id))?.running ? ["127.0.0.1"] : []),
    teardown: () => runtime.close(),
  };
});
