// Child process of the locks contract's crash test: takes a lock and holds it until it is killed.
// Arguments: JSON {module, exportName, options} naming a Locks factory, then the lock's name.
const { module, exportName, options } = JSON.parse(process.argv[2]);
const locks = (await import(module))[exportName](options);
await locks.withLock(process.argv[3], async () => {
  process.stdout.write("held\n");
  await new Promise(() => {}); // until SIGKILL
});
