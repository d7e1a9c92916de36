import { closeSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import type { ConfigSource } from "../../domain/mail/config.js";
import { configFileBytesMax } from "../../domain/mail/limits.js";
import type { ConfigFile } from "../../ports/mail/config-file.js";

/** `<agent dir>/session-mail.json`, read with a size bound and without following it into a FIFO. */
export function createConfigFile(agentDir: string): ConfigFile {
  const path = join(agentDir, "session-mail.json");
  return {
    path,
    read(): ConfigSource {
      let fd: number;
      try {
        fd = openSync(path, "r", 0);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        return code === "ENOENT" ? { kind: "missing" } : { kind: "unreadable", reason: code ?? String(e) };
      }
      try {
        const buffer = Buffer.alloc(configFileBytesMax + 1);
        const read = readSync(fd, buffer, 0, buffer.length, 0);
        return { kind: "text", text: buffer.subarray(0, read).toString("utf8") };
      } catch (e) {
        return { kind: "unreadable", reason: (e as NodeJS.ErrnoException).code ?? String(e) };
      } finally {
        closeSync(fd);
      }
    },
  };
}
