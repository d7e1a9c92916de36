import { defineConfig } from "tsup";

// The Pi extension as one self-contained ES module. Pi's loader (jiti) imports an ES module of a
// "type": "module" package natively, so whatever it imports is resolved by Node, not by Pi: a bare
// `typebox` import loaded the ~600 files of the typebox package next to us (+~350 ms per start,
// and a failed import, then a transform of the whole bundle, where no typebox is installed).
// So nothing is imported at run time but Node's built-ins: neverthrow is bundled, and typebox is
// not used at run time at all (tool schemas are plain JSON Schema, mail files are checked by hand
// in src/domain/shape.ts): bundled, it was 170 KB of 230 and ~10 ms of every start.
export default defineConfig({
  entry: { "session-mail": "src/pi/mail/index.ts", "session-bus": "src/pi/bus/index.ts" },
  outDir: "dist/extension",
  format: ["esm"],
  dts: false,
  // Each bundle stands alone: Pi loads each extension on its own, and a shared chunk would be a
  // second file to import at every start.
  splitting: false,
  clean: true,
  sourcemap: false,
  minify: true,
  target: "node22",
  platform: "node",
  // Only types come from Pi's packages and typebox; a value import would stay external, and
  // test/bundle.test.ts rejects it.
  external: [/^@earendil-works\//, /^@mariozechner\//, /^typebox/],
  // shell-quote is bundled too: the git guard reads bash commands with its parse (about 4 KB).
  noExternal: ["neverthrow", "shell-quote"],
});
