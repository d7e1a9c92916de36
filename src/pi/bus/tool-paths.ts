// The file a built-in tool's `path` argument names, worked out as Pi's own tools do before they
// touch it (one path, one verdict: the guard must check the very file the tool will write): odd
// Unicode spaces read as spaces, a leading `@` dropped, `~` the home folder, a file URL its path,
// and a relative path taken from the session's cwd.
import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const unicodeSpaces = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;

export function toolPath(given: string, cwd: string, home: string = homedir()): string {
  let path = given.replace(unicodeSpaces, " ");
  if (path.startsWith("@")) path = path.slice(1);
  if (path === "~") path = home;
  else if (path.startsWith("~/")) path = `${home}/${path.slice(2)}`;
  else if (path.startsWith("file://")) {
    try {
      path = fileURLToPath(path);
    } catch {
      // Not a file URL Node reads: Pi's tool would fail on it too; checked as written.
    }
  }
  return isAbsolute(path) ? resolve(path) : resolve(cwd, path);
}
