import { defineConfig } from "tsup";

// The Pi extension as one ES module: Pi loads every extension file through jiti, which transforms
// each module it loads, so one bundled file starts much faster than the TypeScript sources.
export default defineConfig({
  entry: { "session-mail": "src/pi/extension.ts" },
  outDir: "dist/extension",
  format: ["esm"],
  dts: false,
  clean: true,
  sourcemap: false,
  minify: true,
  target: "node22",
  platform: "node",
  // Provided by Pi at run time; everything else (neverthrow) is bundled.
  external: [/^@earendil-works\//, /^@mariozechner\//, /^typebox/],
  noExternal: ["neverthrow"],
});
