// Pi loads the extension from the committed bundle, so `pi install <clone>` works with no build
// step. This pins that the committed bundle is exactly what the sources build to, and that it
// imports nothing Node would have to find in a node_modules folder at every Pi start.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..");
const bundle = join(repo, "dist/extension/session-mail.js");

describe("the extension bundle", () => {
  it("is listed in package.json and equals a fresh build of src/pi/mail/index.ts (else: npm run build:extension and commit it)", () => {
    const manifest = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { pi: { extensions: string[] } };
    expect(manifest.pi.extensions).toEqual(["./dist/extension/session-mail.js"]);
    const out = mkdtempSync(join(tmpdir(), "switchboard-bundle-"));
    try {
      execFileSync(
        join(repo, "node_modules/.bin/tsup"),
        ["--config", "tsup.extension.config.ts", "--out-dir", out, "--silent"],
        {
          cwd: repo,
          stdio: "pipe",
          timeout: 60_000,
        },
      );
      const fresh = readFileSync(join(out, "session-mail.js"), "utf8");
      const committed = readFileSync(bundle, "utf8");
      expect(
        committed === fresh,
        "dist/extension/session-mail.js is stale: run npm run build:extension and commit it",
      ).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  // Pi's loader imports this ES module natively, so Node resolves its imports: a package import
  // (typebox was one) loads that package's files from disk at every start, or fails where the
  // package is not installed and makes Pi's loader transform the whole bundle instead.
  it("imports only Node built-ins, statically", async () => {
    const result = await build({
      entryPoints: [bundle],
      bundle: true,
      write: false,
      metafile: true,
      platform: "node",
      format: "esm",
      packages: "external",
      logLevel: "silent",
    });
    const imports = Object.values(result.metafile.inputs).flatMap((input) => input.imports);
    expect(imports.length).toBeGreaterThan(0);
    const foreign = imports.filter(
      (i) => i.kind !== "import-statement" || !builtinModules.includes(i.path.replace(/^node:/, "")),
    );
    expect(foreign.map((i) => `${i.kind} ${i.path}`)).toEqual([]);
  });
});
