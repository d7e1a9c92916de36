// Pi loads the extension from the committed bundle, so `pi install <clone>` works with no build
// step. This pins that the committed bundle is exactly what the sources build to.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..");

describe("the extension bundle", () => {
  it("is listed in package.json and equals a fresh build of src/pi/extension.ts (else: npm run build:extension and commit it)", () => {
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
      const committed = readFileSync(join(repo, "dist/extension/session-mail.js"), "utf8");
      expect(
        committed === fresh,
        "dist/extension/session-mail.js is stale: run npm run build:extension and commit it",
      ).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
