// The entries the tsup configs build, read from the configs themselves so that a test never keeps a
// second copy of the mapping: the library (tsup.config.ts) and one bundle per Pi extension
// (tsup.extension.config.ts).
import { posix } from "node:path";
import libraryConfig from "../tsup.config.js";
import extensionConfig from "../tsup.extension.config.js";

export interface BuildEntry {
  /** The output's name: `session-mail`. */
  name: string;
  /** The source it is built from, repository-relative: `src/pi/mail/index.ts`. */
  source: string;
  /** The file the build writes, repository-relative: `dist/extension/session-mail.js`. */
  output: string;
}

/** The `{ name: source }` entries of one tsup config, or of each config of a list; a config in another
 * shape (a function, an entry array) throws, so the tests that read it fail until this reader learns
 * that shape. A CommonJS build's file ends in `.cjs`. */
function entriesOf(config: unknown, file: string): BuildEntry[] {
  if (Array.isArray(config)) return config.flatMap((one) => entriesOf(one, file));
  if (typeof config !== "object" || config === null) throw new Error(`${file}: expected options objects`);
  const { entry, outDir, format } = config as { entry?: unknown; outDir?: unknown; format?: unknown };
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
    throw new Error(`${file}: expected entry to be { name: source }`);
  }
  const extension = Array.isArray(format) && format.includes("cjs") ? ".cjs" : ".js";
  return Object.entries(entry).map(([name, source]) => {
    if (typeof source !== "string") throw new Error(`${file}: entry ${name} is not a path`);
    return {
      name,
      source: posix.normalize(source),
      output: posix.join(typeof outDir === "string" ? outDir : "dist", `${name}${extension}`),
    };
  });
}

export const libraryEntries = entriesOf(libraryConfig, "tsup.config.ts");
export const extensionEntries = entriesOf(extensionConfig, "tsup.extension.config.ts");
