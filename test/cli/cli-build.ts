// The `switchboard` program laid out as the package has it: the repository's bin/switchboard.cjs, and
// dist/cli/switchboard.cjs built from src/cli/main.ts with the options of its tsup config (one
// CommonJS bundle importing only Node's built-ins).
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { buildSync } from "esbuild";
import { e2ePaths } from "../e2e/harness/pi-command.js";

/** Builds the program into `folder` and returns the path of its bin. */
export function buildCliPackage(folder: string): string {
  mkdirSync(join(folder, "bin"), { recursive: true });
  buildSync({
    entryPoints: [join(e2ePaths.repoRoot, "src", "cli", "main.ts")],
    bundle: true,
    minify: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    // neverthrow's ES module build: its CommonJS one costs an interop copy of its exports at start.
    mainFields: ["module", "main"],
    outfile: join(folder, "dist", "cli", "switchboard.cjs"),
    logLevel: "warning",
  });
  const bin = join(folder, "bin", "switchboard.cjs");
  copyFileSync(join(e2ePaths.repoRoot, "bin", "switchboard.cjs"), bin);
  return bin;
}
