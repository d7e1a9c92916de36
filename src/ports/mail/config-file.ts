import type { ConfigSource } from "../../domain/mail/config.js";

/** `<agent dir>/session-mail.json`, read at start and at each send. */
export interface ConfigFile {
  readonly path: string;
  read(): ConfigSource;
}
