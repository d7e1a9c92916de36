// What a library user can name: every type and value a module of src/index.ts's `export *` lines
// exports is reachable from src/index.ts as that very declaration (one context's name never hides
// another's), and a consumer that names the engines' argument types compiles.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { repo } from "./source-text.js";

const entry = join(repo, "src", "index.ts");
const options: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
};
const scratch = mkdtempSync(join(tmpdir(), "library-types-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The declaration a symbol stands for, through any re-export. */
function declared(checker: ts.TypeChecker, symbol: ts.Symbol): ts.Declaration | undefined {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  return target.declarations?.[0];
}

describe("the library's exports", () => {
  it("reach every export of each module src/index.ts re-exports whole, as that module's own declaration", () => {
    const program = ts.createProgram([entry], options);
    const checker = program.getTypeChecker();
    const index = program.getSourceFile(entry)!;
    const exported = new Map(
      checker.getExportsOfModule(checker.getSymbolAtLocation(index)!).map((s) => [s.name, declared(checker, s)]),
    );
    const hidden: string[] = [];
    let checked = 0;
    for (const statement of index.statements) {
      if (!ts.isExportDeclaration(statement) || statement.exportClause !== undefined) continue;
      const module = checker.getSymbolAtLocation(statement.moduleSpecifier!);
      for (const symbol of module === undefined ? [] : checker.getExportsOfModule(module)) {
        checked++;
        if (exported.get(symbol.name) !== declared(checker, symbol)) hidden.push(symbol.name);
      }
    }
    expect(hidden).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });

  it("compile in a consumer that names the mail and bus identities as the engines take them", () => {
    const consumer = join(scratch, "consumer.ts");
    writeFileSync(
      consumer,
      [
        `import type { BusEngine, BusIdentity, MailboxEngine, MailIdentity } from ${JSON.stringify(entry.replace(/\.ts$/, ".js"))};`,
        "export const mail = (engine: MailboxEngine, who: MailIdentity): void => engine.sessionStarted(who);",
        "export const bus = (engine: BusEngine, who: BusIdentity): void => void engine.sessionStarted(who, 'startup');",
        "type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;",
        "export const mailArg: Same<Parameters<MailboxEngine['sessionStarted']>[0], MailIdentity> = true;",
        "export const busArg: Same<Parameters<BusEngine['sessionStarted']>[0], BusIdentity> = true;",
      ].join("\n"),
    );
    const program = ts.createProgram([consumer], options);
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(problems).toEqual([]);
  });
});
