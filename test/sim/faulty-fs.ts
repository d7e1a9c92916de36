// A process's view of the shared volume that can crash between any two file system calls:
// from the armed call on, every call fails as if the process had died there.
import type { FsLike } from "../../src/adapters/fs/fs-like.js";

export interface CrashSwitch {
  /** The process dies at its `afterCalls`-th next fs call (0: the very next one). */
  arm(afterCalls: number): void;
  readonly crashed: boolean;
}

export function createFaultyFs(fs: FsLike): { fs: FsLike; crash: CrashSwitch } {
  let remaining = Number.POSITIVE_INFINITY;
  let crashed = false;
  const crash: CrashSwitch = {
    arm(afterCalls) {
      remaining = afterCalls;
    },
    get crashed() {
      return crashed;
    },
  };
  const wrapped = new Proxy(fs, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (!crashed && remaining <= 0) crashed = true;
        if (crashed) throw Object.assign(new Error("simulated crash: the process is gone"), { code: "ECRASHED" });
        remaining--;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { fs: wrapped, crash };
}
