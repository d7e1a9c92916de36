// A new project that depends on the packed tarball, and the files it runs: a script that imports
// the library and moves one message through a mail root, a TypeScript file whose types must check,
// and a script that loads the installed extension bundle with a fake Pi API.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

interface LockEntry {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  [key: string]: unknown;
}

/**
 * The lockfile a consumer would have pinned: the entries this repository's lockfile holds for the
 * package's runtime dependencies and theirs, copied as they are, so npm fetches each exactly as
 * `npm ci` did (and finds it in the cache that filled). The tarball itself is not in it: npm reads
 * its manifest from the tarball and checks each dependency range against these pins; a range they
 * do not meet sends npm to the registry, which fails offline.
 */
function seededLock(repoLock: string, dependencies: readonly string[], rootDeps: Record<string, string>) {
  const lock = JSON.parse(readFileSync(repoLock, "utf8")) as { packages: Record<string, LockEntry> };
  const packages: Record<string, LockEntry> = { "": { name: "consumer", dependencies: rootDeps } };
  const queue = [...dependencies];
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    const key = `node_modules/${name}`;
    if (packages[key] !== undefined) continue;
    const pinned = lock.packages[key];
    if (pinned === undefined) throw new Error(`package-lock.json pins no ${name}: npm ci never fetched it`);
    // Whether it is dev, optional or a peer here is npm's to work out for this project.
    const { dev: _d, optional: _o, devOptional: _do, peer: _p, ...entry } = pinned;
    packages[key] = entry;
    queue.push(...Object.keys(entry.dependencies ?? {}), ...Object.keys(entry.optionalDependencies ?? {}));
  }
  return { name: "consumer", lockfileVersion: 3, requires: true, packages };
}

const useLibrary = `
import { randomUUID } from "node:crypto";
import * as lib from "pi-switchboard";

const { createFsMailStore, mailRootFromEnv, nodeFs } = lib;
const must = (result) => {
  if (result.isErr()) throw new Error(JSON.stringify(result.error));
  return result.value;
};
const root = mailRootFromEnv({ XDG_STATE_HOME: process.argv[2] });
const store = createFsMailStore({ fs: nodeFs, root, uid: process.getuid() });
must(store.openRoot());
const [from, to] = [randomUUID(), randomUUID()];
must(store.openBox(from));
must(store.openBox(to));
const envelope = {
  id: randomUUID(), from, to, kind: "request", hops: 0, in_reply_to: [], status: "",
  ts: new Date().toISOString(), body: "hello from a consumer",
};
must(store.deliver(envelope, Date.now(), { durable: true }));
const [name] = must(store.listNew(to)).names;
const claimed = must(store.claim(to, name));
const resolves = (specifier) => {
  try {
    return import.meta.resolve(specifier);
  } catch {
    return null;
  }
};
console.log(JSON.stringify({
  exports: Object.keys(lib).length,
  root,
  claimed: claimed.kind,
  body: claimed.envelope.body,
  neverthrow: resolves("neverthrow"),
  peers: JSON.parse(process.argv[3]).map(resolves),
}));
`;

const typedUse = `
import { type Address, createFsMailStore, type Envelope, isAddress, type MailStore, nodeFs } from "pi-switchboard";

const store: MailStore = createFsMailStore({ fs: nodeFs, root: "/nowhere", uid: 0 });
// An address is checked once, where it enters: then it is an Address.
const address = (text: string): Address => {
  if (!isAddress(text)) throw new Error(\`not an address: \${text}\`);
  return text;
};
const envelope: Envelope = {
  id: "m1", from: address("a"), to: address("b"), kind: "request", hops: 0, in_reply_to: [], status: "", ts: "", body: "",
};
// @ts-expect-error: a plain string is not an Address until it is checked.
export const unchecked: Envelope = { ...envelope, from: "a" };
const delivered = store.deliver(envelope, 0, { durable: false });
export const path: string | undefined = delivered.isOk() ? delivered.value.path : undefined;
// @ts-expect-error: the types are real, so a missing option is an error.
createFsMailStore({ fs: nodeFs, root: "/nowhere" });
`;

const loadExtension = `
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const packageDir = join(process.cwd(), "node_modules", "pi-switchboard");
const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
const calls = [];
const events = { on: () => () => {}, emit: () => {} };
// Every method of the Pi API records its call; none is needed to return anything while registering.
const pi = new Proxy({}, {
  get: (_target, key) => (key === "events" ? events : (...args) => void calls.push({ method: String(key), first: args[0] })),
});
for (const entry of manifest.pi.extensions) {
  const extension = await import(pathToFileURL(join(packageDir, entry)).href);
  extension.default(pi);
}
const firsts = (method) => calls.filter((c) => c.method === method).map((c) => c.first);
console.log(JSON.stringify({
  extensions: manifest.pi.extensions,
  tools: firsts("registerTool").map((tool) => tool.name),
  commands: firsts("registerCommand"),
  events: firsts("on"),
}));
`;

/** Writes the project into `dir`; `tarball` becomes its one dependency. */
export function writeConsumer(options: {
  dir: string;
  tarball: string;
  repo: string;
  dependencies: readonly string[];
}): void {
  const { dir, repo } = options;
  mkdirSync(dir, { recursive: true });
  const rootDeps = { "pi-switchboard": `file:${relative(dir, options.tarball)}` };
  const manifest = { name: "consumer", private: true, type: "module", dependencies: rootDeps };
  const write = (name: string, value: unknown) =>
    writeFileSync(join(dir, name), typeof value === "string" ? value : `${JSON.stringify(value, null, 2)}\n`);
  write("package.json", manifest);
  write("package-lock.json", seededLock(join(repo, "package-lock.json"), options.dependencies, rootDeps));
  write("use-library.mjs", useLibrary);
  write("typed-use.ts", typedUse);
  write("load-extension.mjs", loadExtension);
  // The consumer's own @types/node is borrowed from this repository.
  write("tsconfig.json", {
    compilerOptions: {
      module: "nodenext",
      moduleResolution: "nodenext",
      target: "es2023",
      lib: ["es2023"],
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: ["node"],
      typeRoots: [join(repo, "node_modules", "@types")],
    },
    files: ["typed-use.ts"],
  });
}
