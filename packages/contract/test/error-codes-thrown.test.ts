import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, isErrorCode, statusesOf } from "../src/index.js";
import type { ErrorCode } from "../src/index.js";

// Every code the code base answers with is in the one table (src/errors.ts), with the status it is
// answered with. Core's RepositeError only takes an ErrorCode (a type error otherwise, see the
// last test); this scan also catches what the types cannot: a status the table does not give
// the code, and the server's own `{error, code}` bodies.
const PACKAGES = fileURLToPath(new URL("../../", import.meta.url));
const SCANNED = ["core", "server", ...readdirSync(PACKAGES).filter((name) => name.startsWith("provider-"))];
/** Helpers of core/src/errors.ts: their status, and which argument is the code. */
const HELPERS: Record<string, { status: number; codeArg: number }> = {
  badRequest: { status: 400, codeArg: 1 },
  notFound: { status: 404, codeArg: 1 },
  conflict: { status: 409, codeArg: 1 },
  unprocessable: { status: 422, codeArg: 1 },
};

interface Use {
  code: string;
  status: number | undefined;
  at: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "node_modules" || name === "dist" ? [] : sourceFiles(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/** Each error code written as a literal: `new RepositeError(409, …, "code")`, `conflict(…, "code")`, a subclass's `super(…)`, or an `{error, code: "…"}` body. */
function literalCodes(): Use[] {
  const uses: Use[] = [];
  for (const pkg of SCANNED) {
    for (const file of sourceFiles(join(PACKAGES, pkg, "src"))) {
      const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
      const at = (node: ts.Node) => `${file.slice(PACKAGES.length)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
      const literal = (node: ts.Node | undefined) => (node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined);
      const number = (node: ts.Node | undefined) => (node && ts.isNumericLiteral(node) ? Number(node.text) : undefined);
      const visit = (node: ts.Node): void => {
        if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "RepositeError") {
          const code = literal(node.arguments?.[2]);
          if (code) uses.push({ code, status: number(node.arguments?.[0]), at: at(node) });
        } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.SuperKeyword && extendsRepositeError(node)) {
          const code = literal(node.arguments[2]);
          if (code) uses.push({ code, status: number(node.arguments[0]), at: at(node) });
        } else if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && HELPERS[node.expression.text]) {
          const helper = HELPERS[node.expression.text]!;
          const code = literal(node.arguments[helper.codeArg]);
          if (code) uses.push({ code, status: helper.status, at: at(node) });
        } else if (ts.isObjectLiteralExpression(node) && pkg === "server") {
          const names = node.properties.map((property) => property.name?.getText());
          const code = node.properties.find((property) => property.name?.getText() === "code");
          if (names.includes("error") && code && ts.isPropertyAssignment(code)) {
            const value = literal(code.initializer) ?? literal((code.initializer as ts.SatisfiesExpression).expression);
            if (value) uses.push({ code: value, status: undefined, at: at(node) });
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
  }
  return uses;
}

function extendsRepositeError(node: ts.Node): boolean {
  for (let parent = node.parent; parent; parent = parent.parent) {
    if (ts.isClassDeclaration(parent) || ts.isClassExpression(parent)) {
      return parent.heritageClauses?.some((clause) => clause.types.some((type) => type.expression.getText() === "RepositeError")) ?? false;
    }
  }
  return false;
}

describe("error codes in the code base", () => {
  const uses = literalCodes();

  it("finds the codes core, the server and the providers answer with", () => {
    expect(uses.length).toBeGreaterThan(150);
    expect(new Set(uses.map((use) => use.code))).toEqual(expect.objectContaining({ size: expect.any(Number) }));
    expect(uses.map((use) => use.code)).toEqual(expect.arrayContaining(["not_found", "app_unhealthy", "invalid_json", "payment_declined", "cross_site_request"]));
  });

  it("every code is in the table", () => {
    expect(uses.filter((use) => !isErrorCode(use.code)).map((use) => `${use.code} (${use.at})`)).toEqual([]);
  });

  it("every code is answered with a status the table gives it", () => {
    const wrong = uses.filter((use) => isErrorCode(use.code) && use.status !== undefined && !statusesOf(use.code).includes(use.status));
    expect(wrong.map((use) => `${use.code} ${use.status} (${use.at}); table: ${statusesOf(use.code as ErrorCode).join("/")}`)).toEqual([]);
  });

  it("the table has no code nothing answers with", () => {
    const used = new Set(uses.map((use) => use.code));
    // Codes that reach the table another way than a literal: through a variable or a port's type.
    const indirect = ["repohost_grant_gone", "invalid_signature", "webhook_from_future"];
    expect(Object.keys(ERROR_CODES).filter((code) => !used.has(code) && !indirect.includes(code))).toEqual([]);
  });

  it("a code outside the table is a type error for RepositeError (checked by npm run typecheck)", async () => {
    // core's errors.ts alone (core's index loads every service).
    const { RepositeError, conflict } = await import("../../core/src/errors.js");
    // @ts-expect-error: not a code of the table
    expect(new RepositeError(409, "x", "no_such_code").code).toBe("no_such_code");
    // @ts-expect-error: not a code of the table
    expect(conflict("x", "no_such_code").status).toBe(409);
    expect(RepositeError.of("slug_taken", "Taken.").status).toBe(ERROR_CODES.slug_taken.status);
  });
});
