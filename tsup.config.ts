import { defineConfig } from "tsup";

// The library (dist/index.js + .d.ts), built on install from git (prepare) and before a pack or a
// publish (prepack); it is not committed. Its dependencies stay imports, resolved by the consumer.
export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm"],
  dts: true,
  // Clean dist/ but leave the committed extension bundle: Pi loads it from a clone as it is.
  clean: ["!extension/**"],
  sourcemap: true,
  target: "node22",
  external: ["typebox", "neverthrow", "memfs"],
});
