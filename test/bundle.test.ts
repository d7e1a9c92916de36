// Pi loads each extension from its committed bundle, so `pi install <clone>` works with no build
// step. This pins, for every extension package.json names, that the committed bundle is exactly
// what its source builds to, and that it imports nothing Node would have to find in a
// node_modules folder at every Pi start. The sources come from tsup.extension.config.ts itself.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { extensionEntries } from "./build-entries.js";

const repo = join(import.meta.dirname, "..");
const manifest = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { pi: { extensions: string[] } };
/** The manifest's entries as repository-relative paths: `./dist/extension/session-mail.js` → `dist/…`. */
const listed = manifest.pi.extensions.map((path) => posix.normalize(path));

/** What the build writes besides the extensions Pi loads: the bus's core, which its entry loads on first use. */
const loadedLater = ["dist/extension/session-bus-core.cjs"];

describe("the manifest's extensions", () => {
  it("names at least the mail extension, and exactly the bundles tsup.extension.config.ts builds but the bus's core", () => {
    expect(listed).toContain("dist/extension/session-mail.js");
    expect([...listed, ...loadedLater].sort()).toEqual(extensionEntries.map((entry) => entry.output).sort());
  });

  it("the bus's entry loads its core from the file beside it, and only there", () => {
    const entry = readFileSync(join(repo, "dist/extension/session-bus.js"), "utf8");
    expect(entry.match(/"\.\/[^"]+"/g)).toEqual(['"./session-bus-core.cjs"']);
    const core = createRequire(import.meta.url)(join(repo, "dist/extension/session-bus-core.cjs")) as Record<
      string,
      unknown
    >;
    expect(Object.keys(core)).toEqual(["attachBusCore"]);
    expect(typeof core.attachBusCore).toBe("function");
  });
});

describe("the extension bundles", () => {
  // One build of every entry, into a folder of its own, compared file by file.
  let fresh: string;
  beforeAll(() => {
    fresh = mkdtempSync(join(tmpdir(), "switchboard-bundle-"));
    execFileSync(
      join(repo, "node_modules/.bin/tsup"),
      ["--config", "tsup.extension.config.ts", "--out-dir", fresh, "--silent"],
      { cwd: repo, stdio: "pipe", timeout: 60_000 },
    );
  }, 90_000);
  afterAll(() => rmSync(fresh, { recursive: true, force: true }));

  for (const path of [...listed, ...loadedLater]) {
    const entry = extensionEntries.find((candidate) => candidate.output === path);
    describe(path, () => {
      it(`equals a fresh build of its source, ${entry?.source ?? "(none in tsup.extension.config.ts)"} (else: npm run build:extension and commit it)`, () => {
        expect(entry, `${path} has no entry in tsup.extension.config.ts`).toBeDefined();
        const built = readFileSync(join(fresh, posix.basename(entry!.output)), "utf8");
        const committed = readFileSync(join(repo, path), "utf8");
        expect(committed === built, `${path} is stale: run npm run build:extension and commit it`).toBe(true);
      });

      // Pi's loader imports this ES module natively, so Node resolves its imports: a package import
      // (typebox was one) loads that package's files from disk at every start, or fails where the
      // package is not installed and makes Pi's loader transform the whole bundle instead.
      // The bus's core is CommonJS (its entry requires it synchronously): its loads are require calls.
      const commonJs = path.endsWith(".cjs");
      it(`${commonJs ? "requires" : "imports"} only Node built-ins, statically`, async () => {
        const result = await build({
          entryPoints: [join(repo, path)],
          bundle: true,
          write: false,
          metafile: true,
          platform: "node",
          format: commonJs ? "cjs" : "esm",
          packages: "external",
          logLevel: "silent",
        });
        const imports = Object.values(result.metafile.inputs).flatMap((input) => input.imports);
        expect(imports.length).toBeGreaterThan(0);
        const kind = commonJs ? "require-call" : "import-statement";
        const foreign = imports.filter(
          (i) => i.kind !== kind || !builtinModules.includes(i.path.replace(/^node:/, "")),
        );
        expect(foreign.map((i) => `${i.kind} ${i.path}`)).toEqual([]);
      });
    });
  }
});
