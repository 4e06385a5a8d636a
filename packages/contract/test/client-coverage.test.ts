import { readdirSync, readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { accountCommands, COMMAND_FOR_OPERATION } from "@reposite/cli";
import { createMcpServer, TOOL_FOR_OPERATION } from "@reposite/mcp";
import { APIResource, createClient, OPERATIONS_NOT_FOR_CLIENTS, OPERATIONS_WITHOUT_METHOD } from "@reposite/sdk";
import type { CommandDef } from "citty";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS } from "../src/index.js";

// Every operation of the contract is reachable from every client, or the client says why not:
// an SDK method (or a reason in OPERATIONS_WITHOUT_METHOD), an MCP tool (or a reason in
// TOOL_FOR_OPERATION), a CLI command (or a reason in COMMAND_FOR_OPERATION).
const ids = OPERATIONS.map((op) => op.id);

/** `Class.method` of the SDK's resources for each operation id they call `route(…)` with. */
function sdkMethodsByOperation(): Map<string, string[]> {
  const dir = new URL("../../sdk/src/resources/", import.meta.url);
  const found = new Map<string, string[]>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".ts"))) {
    const source = ts.createSourceFile(file, readFileSync(new URL(file, dir), "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node, where: string | undefined): void => {
      if (ts.isMethodDeclaration(node) && ts.isClassDeclaration(node.parent) && node.parent.name) where = `${node.parent.name.text}.${node.name.getText()}`;
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "route" && where) {
        const [first] = node.arguments;
        if (first && ts.isStringLiteral(first)) found.set(first.text, [...(found.get(first.text) ?? []), where]);
      }
      ts.forEachChild(node, (child) => visit(child, where));
    };
    visit(source, undefined);
  }
  return found;
}

/** The client's resources by class name: `Sites` -> `client.sites`. */
function resourceAccessors(): Map<string, { path: string; resource: APIResource }> {
  const client = createClient({ baseURL: "http://127.0.0.1:9" });
  const found = new Map<string, { path: string; resource: APIResource }>();
  const walk = (value: object, path: string) => {
    for (const [key, field] of Object.entries(value)) {
      if (!(field instanceof APIResource)) continue;
      found.set(field.constructor.name, { path: `${path}.${key}`, resource: field });
      walk(field, `${path}.${key}`);
    }
  };
  walk(client, "client");
  return found;
}

async function commandPaths(commands: Record<string, CommandDef>, prefix = ""): Promise<string[]> {
  const paths: string[] = [];
  for (const [name, command] of Object.entries(commands)) {
    const path = `${prefix}${name}`;
    paths.push(path);
    const resolved = typeof command === "function" ? await (command as () => Promise<CommandDef>)() : command;
    const sub = typeof resolved.subCommands === "function" ? await resolved.subCommands() : await resolved.subCommands;
    if (sub) paths.push(...(await commandPaths(sub as Record<string, CommandDef>, `${path} `)));
  }
  return paths;
}

describe("the SDK", () => {
  const methods = sdkMethodsByOperation();
  const accessors = resourceAccessors();

  it.each(ids)("%s: has a method, or a reason it has none", (id) => {
    const callers = methods.get(id) ?? [];
    const reason = OPERATIONS_WITHOUT_METHOD[id as keyof typeof OPERATIONS_WITHOUT_METHOD];
    expect(callers.length > 0 || Boolean(reason), `${id}: no SDK method calls route("${id}") and OPERATIONS_WITHOUT_METHOD gives no reason`).toBe(true);
    expect(callers.length > 0 && reason !== undefined, `${id}: has a method (${callers.join(", ")}) and a reason it has none`).toBe(false);
    for (const caller of callers) {
      const [className, method] = caller.split(".") as [string, string];
      const accessor = accessors.get(className);
      expect(accessor, `${caller}: its resource is no field of the client`).toBeDefined();
      if (!method.startsWith("#")) expect(typeof (accessor!.resource as unknown as Record<string, unknown>)[method], `${accessor!.path}.${method}`).toBe("function");
    }
  });

  it("names only operations of the contract", () => {
    expect([...methods.keys(), ...Object.keys(OPERATIONS_WITHOUT_METHOD)].filter((id) => !ids.includes(id))).toEqual([]);
  });
});

describe("the MCP server", () => {
  let tools: string[];
  beforeAll(async () => {
    const server = createMcpServer({ baseURL: "http://127.0.0.1:9", problem: "no token in this test" });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "coverage-test", version: "0" });
    await client.connect(clientSide);
    tools = (await client.listTools()).tools.map((tool) => tool.name);
    await client.close();
  });

  it.each(ids)("%s: has a tool, or a reason it has none", (id) => {
    const entry = TOOL_FOR_OPERATION[id as keyof typeof TOOL_FOR_OPERATION];
    expect(entry, `${id}: missing from TOOL_FOR_OPERATION (packages/mcp/src/operation-coverage.ts)`).toBeDefined();
    if ("tool" in entry) expect(tools, `${id}: names a tool the server does not have`).toContain(entry.tool);
    else expect(entry.none.trim().length, `${id}: an empty reason`).toBeGreaterThan(10);
  });

  it("names only operations of the contract, and every tool does at least one", () => {
    expect(Object.keys(TOOL_FOR_OPERATION).filter((id) => !ids.includes(id))).toEqual([]);
    const used = new Set(Object.values(TOOL_FOR_OPERATION).flatMap((entry) => ("tool" in entry ? [entry.tool] : [])));
    expect(tools.filter((tool) => !used.has(tool))).toEqual([]);
  });
});

describe("the CLI", () => {
  let commands: string[];
  beforeAll(async () => {
    const io = { out() {}, write() {}, err() {}, writeErr() {} } as never;
    commands = await commandPaths(accountCommands({ io, exit() {} }));
  });

  it.each(ids)("%s: has a command, or a reason it has none", (id) => {
    const entry = COMMAND_FOR_OPERATION[id as keyof typeof COMMAND_FOR_OPERATION];
    expect(entry, `${id}: missing from COMMAND_FOR_OPERATION (packages/cli/src/operation-coverage.ts)`).toBeDefined();
    if ("command" in entry) expect(commands, `${id}: names a command the CLI does not have`).toContain(entry.command);
    else expect(entry.none.trim().length, `${id}: an empty reason`).toBeGreaterThan(10);
  });

  it("names only operations of the contract", () => {
    expect(Object.keys(COMMAND_FOR_OPERATION).filter((id) => !ids.includes(id))).toEqual([]);
  });
});

describe("the operations no client offers (a person does them in a browser, or a service calls them)", () => {
  const shared = Object.keys(OPERATIONS_NOT_FOR_CLIENTS) as (keyof typeof OPERATIONS_NOT_FOR_CLIENTS)[];

  it("are operations of the contract", () => {
    expect(shared.filter((id) => !ids.includes(id))).toEqual([]);
  });

  it.each(shared)("%s: the CLI and the MCP server give the same reason, from one place", (id) => {
    expect(COMMAND_FOR_OPERATION[id]).toEqual(TOOL_FOR_OPERATION[id]);
    expect(COMMAND_FOR_OPERATION[id]).toEqual(OPERATIONS_NOT_FOR_CLIENTS[id]);
  });
});
