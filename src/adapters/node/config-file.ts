import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import type { ConfigSource } from "../../domain/mail/config.js";
import { configFileBytesMax } from "../../domain/mail/limits.js";
import type { ConfigFile } from "../../ports/mail/config-file.js";

/** `<agent dir>/session-mail.json`, read with a size bound. The open never waits for a FIFO's writer
 * (O_NONBLOCK), and only a regular file is read: a FIFO, a socket or a device put in its place is
 * unreadable, never a session frozen at its start or its next send. A link is followed: the agent
 * dir is the user's own, and a settings file linked from elsewhere is common. */
export function createConfigFile(agentDir: string): ConfigFile {
  const path = join(agentDir, "session-mail.json");
  return {
    path,
    read(): ConfigSource {
      let fd: number;
      try {
        fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        return code === "ENOENT" ? { kind: "missing" } : { kind: "unreadable", reason: code ?? String(e) };
      }
      try {
        if (!fstatSync(fd).isFile()) return { kind: "unreadable", reason: "not a regular file" };
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
