// Worker scripts are bundled once per suite with esbuild (tsup's own bundler) into a temp folder.
// Why not run them through jiti: on this kind of machine a jiti worker needs 1.7–3.6 s to start
// (typebox alone is ~700 modules to resolve and transform), a bundled one about 0.25 s, and the
// kill suites start a few hundred workers. Workers also share a V8 compile cache (children.ts). The bundle is built from src/ at every run, so the
// workers always exercise the code under test.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export type WorkerName = "sender" | "recipient" | "idle-session";

const workersFolder = fileURLToPath(new URL("../workers/", import.meta.url));

export interface WorkerBundle {
  /** The runnable .mjs of each worker. */
  scripts: Record<WorkerName, string>;
  dispose(): void;
}

export async function bundleWorkers(names: readonly WorkerName[]): Promise<WorkerBundle> {
  const outdir = mkdtempSync(join(tmpdir(), "stress-workers-"));
  await build({
    entryPoints: names.map((name) => join(workersFolder, `${name}.ts`)),
    outdir,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    outExtension: { ".js": ".mjs" },
    // Less to parse at every start; identifiers stay, so a worker's stack trace still reads.
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: "silent",
  });
  const scripts = Object.fromEntries(names.map((name) => [name, join(outdir, `${name}.mjs`)])) as Record<
    WorkerName,
    string
  >;
  return { scripts, dispose: () => rmSync(outdir, { recursive: true, force: true }) };
}
