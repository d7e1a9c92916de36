import { defineConfig } from "tsup";

// The library (dist/index.js + .d.ts) and the `switchboard` program (dist/cli/switchboard.cjs, run by
// bin/switchboard.cjs), built on install from git (prepare) and before a pack or a publish (prepack);
// neither is committed.
export default defineConfig([
  {
    entry: { index: "src/index.ts" },
    format: ["esm"],
    dts: true,
    // Clean dist/ but leave the committed extension bundle (Pi loads it from a clone as it is) and
    // the program, which the second config writes at the same time.
    clean: ["!extension/**", "!cli/**"],
    sourcemap: true,
    target: "node22",
    // The library's dependencies stay imports, resolved by the consumer.
    external: ["typebox", "neverthrow", "memfs"],
  },
  {
    // The program stands alone: it imports only Node's built-ins (neverthrow is bundled), so it starts
    // in about the time Node does. CommonJS: Node starts it a few ms sooner than an ES module (no
    // module loader to set up). It runs on Node 20 as well, the system Node of many machines.
    entry: { switchboard: "src/cli/main.ts" },
    outDir: "dist/cli",
    format: ["cjs"],
    outExtension: () => ({ js: ".cjs" }),
    dts: false,
    splitting: false,
    clean: false,
    sourcemap: false,
    minify: true,
    target: "node20",
    platform: "node",
    noExternal: ["neverthrow"],
    // neverthrow's ES module build, which the bundler folds in whole; its CommonJS one costs an
    // interop copy of its exports at start.
    esbuildOptions(options) {
      options.mainFields = ["module", "main"];
    },
  },
]);
