import { defineConfig } from "tsup";

// The library (dist/index.js + .d.ts) and the `switchboard` program (dist/cli/switchboard.js), built on
// install from git (prepare) and before a pack or a publish (prepack); neither is committed.
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
    // in about the time Node does. It runs on Node 20 as well, the system Node of many machines.
    entry: { switchboard: "src/cli/main.ts" },
    outDir: "dist/cli",
    format: ["esm"],
    dts: false,
    splitting: false,
    clean: false,
    sourcemap: false,
    minify: true,
    target: "node20",
    platform: "node",
    noExternal: ["neverthrow"],
    banner: { js: "#!/usr/bin/env node" },
  },
]);
