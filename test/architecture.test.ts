// The dependency rule of DESIGN.md ("Architecture: ports and adapters"), checked on the source text
// of every .ts file under src/ by the checker in test/dependency-rule.ts; the self-tests at the
// bottom prove on the fake sources of test/architecture-fakes.ts that each rule fails when it should.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { orphanFakes, orphanTests, ruleFakes } from "./architecture-fakes.js";
import { extensionEntries, libraryEntries } from "./build-entries.js";
import { checkSources, formatted, placeOf, type RuleId, rules } from "./dependency-rule.js";
import { lineAt, parseImports, readSources, repo, resolveSource, type SourceFile, scanSource } from "./source-text.js";

const fakeFile = (path: string, ...lines: string[]): SourceFile => ({ path, text: lines.join("\n") });

/** What the builds start from: the library's src/index.ts and each Pi extension's index.ts. */
const buildRoots = new Set([...libraryEntries, ...extensionEntries].map((entry) => entry.source));

describe("dependency rule over src/", () => {
  const sources = readSources(join(repo, "src"));
  const violations = checkSources(sources, { roots: buildRoots, tests: readSources(join(repo, "test")) });

  it("reads the .ts files of every folder of the layout and parses every relative import each one names", () => {
    const folders = ["domain/shared", "domain/mail", "ports/shared", "ports/mail", "adapters/fs/shared"];
    folders.push("adapters/fs/mail", "adapters/node", "adapters/memory", "wiring", "pi/shared", "pi/mail", "entry");
    for (const folder of folders) {
      expect(
        sources.some((f) => placeOf(f.path).folder === folder),
        `files in ${folder}`,
      ).toBe(true);
    }
    // Independent of the import pattern: every quoted "./x.js" or "../x.js" must be a parsed specifier.
    const missed = sources.flatMap((f) => {
      const scanned = scanSource(f.text);
      const parsed = new Set(parseImports(scanned).map((ref) => ref.specifier));
      return [...scanned.code.matchAll(/["'](\.\.?\/[^"'\n]*\.js)["']/g)]
        .filter((m) => !parsed.has(m[1]!))
        .map((m) => `${f.path}:${lineAt(scanned.code, m.index)} ${m[1]}`);
    });
    expect(missed).toEqual([]);
    expect(sources.reduce((count, f) => count + parseImports(scanSource(f.text)).length, 0)).toBeGreaterThan(
      sources.length,
    );
  });

  it("resolves every relative import to a file under src, so no use of an export goes uncounted", () => {
    const paths = new Set(sources.map((f) => f.path));
    const unresolved = sources.flatMap((f) =>
      parseImports(scanSource(f.text))
        .filter((ref) => ref.specifier.startsWith(".") && resolveSource(f.path, ref.specifier, paths) === undefined)
        .map((ref) => `${f.path}:${ref.line} ${ref.specifier}`),
    );
    expect(unresolved).toEqual([]);
  });

  it("takes its roots from the tsup configs, and each root is a file under src", () => {
    expect([...buildRoots].sort()).toEqual(expect.arrayContaining(["src/index.ts", "src/pi/mail/index.ts"]));
    for (const root of buildRoots) expect(sources.map((f) => f.path)).toContain(root);
  });

  for (const [rule, name] of Object.entries(rules) as [RuleId, string][]) {
    it(name, () => {
      expect(formatted(violations, rule)).toEqual([]);
    });
  }
});

const found = checkSources(ruleFakes, {
  roots: new Set(["src/index.ts", "src/pi/mail/index.ts", "src/pi/bus/index.ts"]),
  tests: [],
});

describe("the dependency checker itself: each layer's own imports and code", () => {
  it("flags a domain file importing node:fs, typebox or a value from ports, and nothing type-only or in domain", () => {
    expect(formatted(found, "domain")).toEqual([
      'src/domain/mail/bad.ts:1 imports "node:fs"',
      'src/domain/mail/bad.ts:2 imports "../../ports/shared/clock.js"',
      'src/domain/mail/bad.ts:12 imports "typebox"',
    ]);
  });

  it("flags Date, timers, Math.random and process in domain code, template expressions included, but not in comments or strings", () => {
    expect(formatted(found, "ambient")).toEqual([
      "src/domain/mail/bad.ts:3 names Date",
      "src/domain/mail/bad.ts:4 names setTimeout",
      "src/domain/mail/bad.ts:7 names Math.random",
      "src/domain/mail/bad.ts:9 names Date",
      "src/domain/mail/bad.ts:9 names process",
    ]);
  });

  it("flags a value import in ports and a type import from adapters, reporting a multi-line statement at its first line", () => {
    expect(formatted(found, "ports")).toEqual([
      'src/ports/mail/bad.ts:1 imports "neverthrow"',
      'src/ports/mail/bad.ts:2 imports "../../adapters/fs/shared/fs-like.js"',
    ]);
  });
});

describe("the dependency checker itself: contexts, adapters, composition, Pi, dynamic loads and the layout", () => {
  it("flags mail importing bus and bus importing mail in domain, ports, adapters/fs and pi, and shared importing either, but not a context importing shared or itself", () => {
    expect(formatted(found, "contexts")).toEqual([
      'src/domain/mail/bad.ts:13 imports "../bus/limits.js"',
      'src/domain/bus/engine.ts:1 imports "../mail/address.js"',
      'src/domain/bus/engine.ts:4 imports "../../ports/mail/mail-store.js"',
      'src/domain/shared/kernel.ts:1 imports "../mail/limits.js"',
      'src/ports/bus/store.ts:1 imports "../mail/mail-store.js"',
      'src/ports/bus/store.ts:4 imports "../../domain/mail/envelope.js"',
      'src/adapters/fs/shared/bad.ts:6 imports "../../../domain/mail/limits.js"',
      'src/adapters/fs/mail/store.ts:1 imports "../bus/fs-claims.js"',
      'src/adapters/fs/mail/store.ts:3 imports "../../../ports/bus/bus-store.js"',
      'src/adapters/fs/bus/store.ts:1 imports "../mail/fs-boxes.js"',
      'src/pi/mail/index.ts:3 imports "../bus/tools.js"',
      'src/pi/bus/index.ts:1 imports "../mail/tools.js"',
      'src/pi/bus/index.ts:4 imports "../../domain/mail/address.js"',
    ]);
  });

  it("flags node:* outside adapters/node, memfs outside adapters/memory, pg outside adapters/pg, and an adapter importing another's folder but adapters/fs/shared", () => {
    expect(formatted(found, "adapters")).toEqual([
      'src/adapters/fs/shared/bad.ts:1 imports "node:fs"',
      'src/adapters/fs/shared/bad.ts:2 imports "../../memory/memory-fs.js"',
      'src/adapters/fs/shared/bad.ts:3 imports "memfs"',
      'src/adapters/fs/mail/store.ts:1 imports "../bus/fs-claims.js"',
      'src/adapters/fs/bus/store.ts:1 imports "../mail/fs-boxes.js"',
      'src/adapters/node/host.ts:3 imports "@earendil-works/pi-coding-agent"',
      'src/adapters/node/host.ts:5 imports "../fs/mail/fs-mail-store.js"',
      'src/adapters/memory/vol.ts:2 imports "node:os"',
      'src/adapters/memory/vol.ts:3 imports "pg"',
    ]);
  });

  it("flags memfs and pg imported anywhere but their own adapter folder", () => {
    expect(formatted(found, "platforms")).toEqual([
      'src/adapters/fs/shared/bad.ts:3 imports "memfs"',
      'src/adapters/memory/vol.ts:3 imports "pg"',
      'src/pi/mail/index.ts:5 imports "memfs"',
    ]);
  });

  it("flags src/wiring importing src/pi, src/cli or node:*, but not domain, ports, adapters or neverthrow", () => {
    expect(formatted(found, "wiring")).toEqual([
      'src/wiring/bus.ts:2 imports "../pi/bus/tools.js"',
      'src/wiring/bus.ts:3 imports "../cli/main.js"',
      'src/wiring/bus.ts:4 imports "node:fs"',
    ]);
  });

  it("flags Pi packages outside src/pi, and src/pi or src/cli imported from outside them, src/index.ts included", () => {
    expect(formatted(found, "pi")).toEqual(['src/adapters/node/host.ts:3 imports "@earendil-works/pi-coding-agent"']);
    expect(formatted(found, "intoPi")).toEqual([
      'src/wiring/bus.ts:2 imports "../pi/bus/tools.js"',
      'src/index.ts:1 imports "./pi/mail/index.js"',
    ]);
    expect(formatted(found, "intoCli")).toEqual([
      'src/wiring/bus.ts:3 imports "../cli/main.js"',
      'src/index.ts:3 imports "./cli/main.js"',
    ]);
  });

  it("flags import() and require() calls but not the words in comments or template text", () => {
    expect(formatted(found, "dynamic")).toEqual([
      "src/domain/mail/bad.ts:11 calls import()",
      "src/adapters/node/host.ts:4 calls require()",
    ]);
  });

  it("flags a file outside the layout's folders: loose in domain or src, an unknown context or platform, adapters/fs without a context", () => {
    expect(formatted(found, "layout")).toEqual([
      "src/domain/loose.ts:1 has no place",
      "src/helpers.ts:1 has no place",
      "src/pi/tools/send.ts:1 has no place",
      "src/adapters/fs/fs-like.ts:1 has no place",
      "src/adapters/browser/fs.ts:1 has no place",
    ]);
  });
});

describe("the orphan check itself", () => {
  const found = checkSources(orphanFakes, {
    roots: new Set(["src/index.ts", "src/pi/mail/index.ts"]),
    tests: orphanTests,
  });

  it("names each export no other file of src imports or re-exports, as file: name, and no export that one does (a star, a default, a type, a re-export) nor the roots' own", () => {
    expect(formatted(found, "orphans")).toEqual([
      "src/domain/shared/words.ts: orphanConst",
      "src/domain/shared/words.ts: OrphanAlias",
      "src/domain/shared/words.ts: alsoOrphan",
      "src/domain/shared/words.ts: Kind",
      "src/domain/mail/user.ts: Shape",
      "src/domain/mail/user.ts: unusedHere",
      "src/domain/mail/parse.ts: testedOnly",
      "src/adapters/memory/world.ts: unusedWorld",
    ]);
    expect(found.filter((v) => v.rule !== "orphans")).toEqual([]);
  });

  it("accepts a test's import only of live code its own file reads (parseLine) or of the memory adapters (the tests' world), never of code only tests read (testedOnly, orphanConst)", () => {
    const withoutTests = checkSources(orphanFakes, {
      roots: new Set(["src/index.ts", "src/pi/mail/index.ts"]),
      tests: [],
    });
    const added = formatted(withoutTests, "orphans").filter((line) => !formatted(found, "orphans").includes(line));
    expect(added).toEqual(["src/domain/mail/parse.ts: parseLine", "src/adapters/memory/world.ts: createWorld"]);
  });

  it("counts no use from a file of the sources outside src, nor from an export's own file", () => {
    const outside: SourceFile = fakeFile(
      "test/words.test.ts",
      'import { orphanConst } from "../src/domain/shared/words.js";',
    );
    const alone = checkSources([orphanFakes[0]!, outside], { roots: new Set(), tests: [] });
    expect(formatted(alone, "orphans")).toContain("src/domain/shared/words.ts: orphanConst");
    expect(formatted(alone, "orphans")).toContain("src/domain/shared/words.ts: Kind");
  });
});
