// docs/architecture.md: the ports are "MailStore, BusStore, RepoResolver, AgentHost, BusHost;
// shared: Clock, Watcher, Entropy, ProcessProbe, StoreError", and "src/index.ts exports the library".
import ts from "typescript";
import { describe, expect, it } from "vitest";

describe("src/index.ts exports every port the architecture doc names", () => {
  it("exports each of them", () => {
    const entry = new URL("../src/index.ts", import.meta.url).pathname;
    const program = ts.createProgram([entry], {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      noEmit: true,
      skipLibCheck: true,
    });
    const checker = program.getTypeChecker();
    const source = program.getSourceFile(entry)!;
    const exported = new Set(checker.getExportsOfModule(checker.getSymbolAtLocation(source)!).map((s) => s.name));
    const named = [
      "MailStore",
      "BusStore",
      "RepoResolver",
      "AgentHost",
      "BusHost",
      "Clock",
      "Watcher",
      "Entropy",
      "ProcessProbe",
      "StoreError",
      "FsLike",
    ];
    expect(named.filter((name) => !exported.has(name))).toEqual([]);
  });
});
