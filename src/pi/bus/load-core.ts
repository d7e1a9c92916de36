// Where index.ts finds the bus's core. From the sources (tests, the library) it is an import like any
// other; the extension's bundle replaces this file (tsup.extension.config.ts) with a synchronous
// require of its own second file, session-bus-core.cjs, so Pi's start never reads or compiles it.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { attachBusCore, type BusCore } from "./core.js";

export function loadCore(): (pi: ExtensionAPI) => BusCore {
  return attachBusCore;
}
