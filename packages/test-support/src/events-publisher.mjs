// Child process of the events contract's two-process test: publishes the events it reads on stdin
// (a JSON list) on a channel, in order, then closes its bus (sending what is queued) and exits.
// Arguments: JSON {module, exportName, options} naming an EventBus factory, then the channel.
const { module, exportName, options } = JSON.parse(process.argv[2]);
const bus = (await import(module))[exportName](options);
let input = "";
for await (const chunk of process.stdin) input += chunk;
for (const event of JSON.parse(input)) bus.publish(process.argv[3], event);
await bus.close?.();
process.exit(0);
