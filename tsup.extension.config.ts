import type { Plugin } from "esbuild";
import { defineConfig, type Options } from "tsup";

// The Pi extensions as self-contained modules. Pi's loader (jiti) imports an ES module of a
// "type": "module" package natively, so whatever it imports is resolved by Node, not by Pi: a bare
// `typebox` import loaded the ~600 files of the typebox package next to us (+~350 ms per start,
// and a failed import, then a transform of the whole bundle, where no typebox is installed).
// So nothing is imported at run time but Node's built-ins: neverthrow and shell-quote are bundled,
// and typebox is not used at run time at all (tool schemas are plain JSON Schema, mail files are
// checked by hand in src/domain/shape.ts): bundled, it was 170 KB of 230 and ~10 ms of every start.
const shared: Options = {
  outDir: "dist/extension",
  dts: false,
  // Each bundle stands alone: Pi loads each extension on its own, and a shared chunk would be a
  // second file to import at every start.
  splitting: false,
  // Several configs write one folder: the build script empties it first.
  clean: false,
  sourcemap: false,
  minify: true,
  target: "node22",
  platform: "node",
  // Only types come from Pi's packages and typebox; a value import would stay external, and
  // test/bundle.test.ts rejects it.
  external: [/^@earendil-works\//, /^@mariozechner\//, /^typebox/],
  // shell-quote: the git guard reads bash commands with its parse (about 4 KB).
  noExternal: ["neverthrow", "shell-quote"],
};

/** session-bus's entry loads its core (the bus's work) on first use, from the second file built
 * beside it: a synchronous require, since the join API answers within one emit. Compiling the core
 * at every Pi start cost about 2 ms for sessions that never touch the bus. */
const coreBeside: Plugin = {
  name: "session-bus-core-beside",
  setup(build) {
    build.onResolve({ filter: /^\.\/load-core\.js$/ }, () => ({ path: "load-core", namespace: "core-beside" }));
    build.onLoad({ filter: /.*/, namespace: "core-beside" }, () => ({
      loader: "js",
      contents: [
        'import { createRequire } from "node:module";',
        "const load = createRequire(import.meta.url);",
        'export function loadCore() { return load("./session-bus-core.cjs").attachBusCore; }',
      ].join("\n"),
    }));
  },
};

export default defineConfig([
  {
    ...shared,
    entry: { "session-mail": "src/pi/mail/index.ts", "session-bus": "src/pi/bus/index.ts" },
    format: ["esm"],
    esbuildPlugins: [coreBeside],
  },
  {
    ...shared,
    entry: { "session-bus-core": "src/pi/bus/core.ts" },
    format: ["cjs"],
    outExtension: () => ({ js: ".cjs" }),
  },
]);
