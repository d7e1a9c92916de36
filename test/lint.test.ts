// Biome's checks are part of the tests: formatting and lint over the repository, and the house rule
// that no function under src runs past 70 lines (proved on made-up files beside a copy of the
// repository's biome.json, in a temp folder).
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repo } from "./source-text.js";

const biome = join(repo, "node_modules", ".bin", "biome");
const scratch = mkdtempSync(join(tmpdir(), "lint-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A function whose body is `lines` lines long. */
const functionOf = (lines: number) =>
  `export function long(): number {\n  let n = 0;\n${"  n++;\n".repeat(lines - 2)}  return n;\n}\n`;

function lintAs(path: string, text: string) {
  mkdirSync(join(scratch, path, ".."), { recursive: true });
  writeFileSync(join(scratch, path), text);
  const run = spawnSync(biome, ["lint", path], { cwd: scratch, encoding: "utf8" });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe("biome", () => {
  it("finds nothing to fix or flag in src, test, bench and scripts", () => {
    const run = spawnSync(biome, ["check", "."], { cwd: repo, encoding: "utf8" });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
  });

  it("refuses a function of 71 lines under src, and takes 70 there and 71 outside it", () => {
    copyFileSync(join(repo, "biome.json"), join(scratch, "biome.json"));
    expect(lintAs("src/fits.ts", functionOf(70)).status).toBe(0);
    const refused = lintAs("src/long.ts", functionOf(71));
    expect(refused.status, refused.output).not.toBe(0);
    expect(refused.output).toContain("too many lines (71). Maximum allowed is 70");
    expect(lintAs("test/long.test.ts", functionOf(71)).status).toBe(0);
  });
});
