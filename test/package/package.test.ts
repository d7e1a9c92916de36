// The package as people get it. A clone: Pi loads it with no build and no npm install. `npm pack`
// of a clone: the tarball carries what package.json exports. That tarball installed into a new
// project: the library imports and moves a message, its types check, and the extension bundle
// loads, both with a fake Pi API and in Pi itself; installed globally, `switchboard` is on PATH. And
// `pi install git:`: a production install (no dev dependencies, so no build tools) that must still
// succeed and load. Offline throughout: git clones a local snapshot of this working tree, npm
// installs with --offline from the cache `npm ci` filled (the global install, which has no lockfile,
// from a registry on loopback), and Pi runs with no network where unshare allows.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { e2ePaths } from "../e2e/harness/pi-command.js";
import { writeConsumer } from "./consumer.js";
import { createPiPlace, type PiPlace, piCli, piRpc, type RpcRecord } from "./pi-place.js";
import { startLocalRegistry } from "./registry.js";
import { killLive, onPath, run } from "./run.js";

const repo = e2ePaths.repoRoot;
const node = e2ePaths.nodeBin;
const setupTimeoutMs = 120_000;
const stepTimeoutMs = 30_000;
/** Where `pi install git:github.com/example/pi-switchboard` clones from: git is told to use the snapshot. */
const gitSource = "github.com/example/pi-switchboard";

interface Listed {
  version?: string;
  dependencies?: Record<string, Listed>;
}

interface Manifest {
  main: string;
  types: string;
  exports: { ".": { types: string; import: string } };
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  pi: { extensions: string[] };
  bin: Record<string, string>;
}

/** npm as this test's user runs it, minus what `npm run` set for this repository (its prefix, its package). */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_(package_|lifecycle_|command$|config_local_prefix$)/.test(key) || key === "INIT_CWD") continue;
    env[key] = value;
  }
  return {
    ...env,
    PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ""}`,
    npm_config_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
  };
}

/** git without the user's or the system's configuration. */
const gitEnv = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
const git = (cwd: string, ...args: string[]) =>
  run(onPath("git"), ["-c", "user.name=test", "-c", "user.email=test@localhost", ...args], {
    cwd,
    env: gitEnv,
    timeoutMs: stepTimeoutMs,
  });

/** The working tree as a clone would have it (tracked and untracked files, nothing ignored), as one commit. */
async function snapshotOf(dir: string): Promise<void> {
  const listed = await git(repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard");
  for (const file of listed.split("\0")) {
    if (file === "" || !existsSync(join(repo, file))) continue;
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(repo, file), join(dir, file));
  }
  await git(dir, "init", "-q", "-b", "main");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-q", "-m", "snapshot");
}

const response = (records: readonly RpcRecord[], id: string) => {
  const found = records.find((r) => r.type === "response" && r.id === id);
  if (found === undefined || found.success !== true) throw new Error(`no successful response to ${id}`);
  return found.data as Record<string, unknown>;
};

/** Starts Pi, and checks that /mailbox comes from `bundle`, answers with this session's address and opened its mailbox. */
async function expectMailboxFrom(place: PiPlace, args: readonly string[], bundle: string): Promise<void> {
  const records = await piRpc(place, args, [
    { id: "state", type: "get_state" },
    { id: "commands", type: "get_commands" },
    { id: "mailbox", type: "prompt", message: "/mailbox" },
  ]);
  const sessionId = String(response(records, "state").sessionId);
  const commands = response(records, "commands").commands as { name: string; sourceInfo: { path: string } }[];
  const mailbox = commands.find((c) => c.name === "mailbox");
  expect(mailbox, "Pi lists /mailbox").toBeDefined();
  expect(realpathSync(mailbox?.sourceInfo.path ?? "")).toBe(realpathSync(bundle));
  const sessions = commands.find((c) => c.name === "sessions");
  expect(sessions, "Pi lists /sessions").toBeDefined();
  expect(realpathSync(sessions?.sourceInfo.path ?? "")).toBe(realpathSync(join(dirname(bundle), "session-bus.js")));
  const notices = records.filter((r) => r.type === "extension_ui_request" && r.method === "notify");
  expect(notices.map((n) => String(n.message)).some((m) => m.includes(sessionId))).toBe(true);
  expect(existsSync(join(place.state, "pi-session-mail", sessionId, "new"))).toBe(true);
}

describe("the package: a clone, its npm pack tarball installed offline, and pi install", () => {
  let root: string;
  let snapshot: string;
  let consumer: string;
  let manifest: Manifest;
  let packed: string[];
  let tarball: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "switchboard-package-"));
    snapshot = join(root, "snapshot");
    await snapshotOf(snapshot);
    manifest = JSON.parse(readFileSync(join(snapshot, "package.json"), "utf8")) as Manifest;
    // Packed from a clone of the snapshot, with this repository's dev tools: npm runs prepack and prepare.
    const clone = join(root, "clone");
    await git(root, "clone", "-q", snapshot, clone);
    symlinkSync(join(repo, "node_modules"), join(clone, "node_modules"));
    const out = await run("npm", ["pack", "--json", "--pack-destination", root], {
      cwd: clone,
      env: npmEnv(),
      timeoutMs: 60_000,
    });
    const [pack] = JSON.parse(out) as { filename: string; files: { path: string }[] }[];
    if (pack === undefined) throw new Error(`npm pack printed no tarball: ${out}`);
    packed = pack.files.map((f) => f.path);
    consumer = join(root, "consumer");
    const dependencies = Object.keys(manifest.dependencies);
    tarball = join(root, pack.filename);
    writeConsumer({ dir: consumer, tarball, repo, dependencies });
    await run("npm", ["install"], { cwd: consumer, env: npmEnv(), timeoutMs: stepTimeoutMs });
  }, setupTimeoutMs);

  afterAll(() => {
    killLive();
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
  });

  it("a clone has no built library, yet Pi loads the extension from it with -e and after pi install <path>", async () => {
    expect(existsSync(join(snapshot, manifest.main))).toBe(false);
    expect(existsSync(join(snapshot, "node_modules"))).toBe(false);
    const bundle = join(snapshot, "dist/extension/session-mail.js");
    await expectMailboxFrom(createPiPlace(join(root, "pi-e-clone"), { PI_OFFLINE: "1" }), ["-e", snapshot], bundle);
    const installed = createPiPlace(join(root, "pi-install-clone"), { PI_OFFLINE: "1" });
    await piCli(installed, ["install", snapshot]);
    await expectMailboxFrom(installed, [], bundle);
  }, 60_000);

  it("npm pack builds and ships everything package.json points at, the docs, and no tests", () => {
    const entries = [manifest.main, manifest.types, manifest.exports["."].import, manifest.exports["."].types];
    for (const path of [...entries, ...manifest.pi.extensions, ...Object.values(manifest.bin)])
      expect(packed).toContain(path.replace(/^\.\//, ""));
    for (const doc of ["README.md", "CHANGELOG.md", "SECURITY.md", "LICENSE"]) expect(packed).toContain(doc);
    expect(packed.filter((p) => /^(test|bench|scripts|node_modules)\//.test(p))).toEqual([]);
  });

  it("installs offline into a new project: its dependencies resolved by npm, Pi's packages left out", async () => {
    // npm ls exits non-zero on a missing or invalid dependency anywhere in the tree.
    const tree = JSON.parse(
      await run("npm", ["ls", "--all", "--json"], { cwd: consumer, env: npmEnv(), timeoutMs: stepTimeoutMs }),
    ) as { dependencies: Record<string, Listed> };
    const installed = tree.dependencies["pi-switchboard"];
    expect(installed?.version).toBe(JSON.parse(readFileSync(join(repo, "package.json"), "utf8")).version);
    // npm ls lists a peer that is not installed as {}: optional, so not a problem.
    const present = Object.entries(installed?.dependencies ?? {}).filter(([, d]) => d.version !== undefined);
    expect(present.map(([name]) => name).sort()).toEqual(Object.keys(manifest.dependencies).sort());
    for (const peer of Object.keys(manifest.peerDependencies)) {
      expect(existsSync(join(consumer, "node_modules", peer)), `${peer} is not installed`).toBe(false);
    }
  });

  it("the library imports in Node 22 and delivers and claims a message, without Pi installed", async () => {
    const state = join(root, "library-state");
    const peers = Object.keys(manifest.peerDependencies);
    const out = await run(node, ["use-library.mjs", state, JSON.stringify(peers)], {
      cwd: consumer,
      env: npmEnv(),
      timeoutMs: stepTimeoutMs,
    });
    const result = JSON.parse(out) as Record<string, unknown>;
    expect(result.exports).toBeGreaterThan(20);
    expect(result.root).toBe(join(state, "pi-session-mail"));
    expect(result.claimed).toBe("claimed");
    expect(result.body).toBe("hello from a consumer");
    expect(result.neverthrow).toContain(pathToFileURL(join(consumer, "node_modules", "neverthrow")).href);
    expect(result.peers, "no Pi package resolves from the project").toEqual(peers.map(() => null));
  });

  it("puts switchboard on the project's PATH: npx switchboard lists the sessions, with or without Pi", async () => {
    const state = join(root, "cli-state");
    const env = { ...npmEnv(), XDG_STATE_HOME: state, PI_CODING_AGENT_DIR: join(root, "cli-agent") };
    const help = await run("npx", ["--no-install", "switchboard", "--help"], {
      cwd: consumer,
      env,
      timeoutMs: stepTimeoutMs,
    });
    expect(help).toMatch(/^switchboard: the Pi sessions on this machine/);
    const listed = await run("npx", ["--no-install", "switchboard", "list", "--json"], {
      cwd: consumer,
      env,
      timeoutMs: stepTimeoutMs,
    });
    expect(JSON.parse(listed)).toEqual({ sessions: [] });
  });

  it("npm install -g puts switchboard on PATH: the tarball installed globally, its dependency from a registry", async () => {
    // A global install has no lockfile, so npm asks a registry for neverthrow: one on loopback
    // serves the copy this repository installed, packed.
    const dependency = JSON.parse(readFileSync(join(repo, "node_modules/neverthrow/package.json"), "utf8"));
    const out = await run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", root], {
      cwd: join(repo, "node_modules/neverthrow"),
      env: npmEnv(),
      timeoutMs: stepTimeoutMs,
    });
    const [neverthrow] = JSON.parse(out) as { filename: string }[];
    const registry = await startLocalRegistry([
      { name: "neverthrow", version: dependency.version, tarball: join(root, neverthrow!.filename) },
    ]);
    try {
      const prefix = join(root, "global");
      const env = { ...npmEnv(), npm_config_offline: "false", npm_config_registry: registry.url };
      await run("npm", ["install", "-g", "--prefix", prefix, tarball], { cwd: root, env, timeoutMs: setupTimeoutMs });
      expect(registry.requests).toContain("/neverthrow");
      const state = join(root, "global-state");
      const onPathEnv = {
        ...npmEnv(),
        PATH: `${join(prefix, "bin")}${delimiter}${npmEnv().PATH}`,
        XDG_STATE_HOME: state,
        PI_CODING_AGENT_DIR: join(root, "global-agent"),
      };
      const listed = await run("switchboard", ["list", "--json"], {
        cwd: root,
        env: onPathEnv,
        timeoutMs: stepTimeoutMs,
      });
      expect(JSON.parse(listed)).toEqual({ sessions: [] });
      expect(realpathSync(join(prefix, "bin", "switchboard"))).toBe(
        join(realpathSync(prefix), "lib", "node_modules", "pi-switchboard", "bin", "switchboard.cjs"),
      );
    } finally {
      await registry.close();
    }
  });

  it("its types check in a TypeScript project (NodeNext, strict, library checks on)", async () => {
    const tsc = join(repo, "node_modules", "typescript", "bin", "tsc");
    await run(node, [tsc, "-p", "tsconfig.json"], { cwd: consumer, env: npmEnv(), timeoutMs: stepTimeoutMs });
  });

  it("the installed bundles register the mail tools and /mailbox, and the session tool and /sessions, when given a Pi API", async () => {
    const out = await run(node, ["load-extension.mjs"], { cwd: consumer, env: npmEnv(), timeoutMs: stepTimeoutMs });
    const loaded = JSON.parse(out) as { extensions: string[]; tools: string[]; commands: string[]; events: string[] };
    expect(loaded.extensions).toEqual(["./dist/extension/session-mail.js", "./dist/extension/session-bus.js"]);
    expect(loaded.tools.sort()).toEqual([
      "session",
      "session_mail_ask",
      "session_mail_list",
      "session_mail_reply",
      "session_mail_send",
    ]);
    expect(loaded.commands).toEqual(["mailbox", "sessions"]);
    expect(loaded.events).toContain("session_start");
  });

  it("Pi loads the extension from the installed package (pi -e node_modules/pi-switchboard)", async () => {
    const installed = join(consumer, "node_modules", "pi-switchboard");
    const place = createPiPlace(join(root, "pi-e-installed"), { PI_OFFLINE: "1" });
    await expectMailboxFrom(place, ["-e", installed], join(installed, "dist/extension/session-mail.js"));
  });

  it("pi install git: installs it without dev dependencies (nothing to build) and loads it", async () => {
    const place = createPiPlace(join(root, "pi-install-git"), {
      // git fetches the snapshot for this URL, and npm works from the cache `npm ci` filled.
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: `url.${pathToFileURL(snapshot).href}.insteadOf`,
      GIT_CONFIG_VALUE_0: `https://${gitSource}`,
      npm_config_offline: "true",
      npm_config_cache: process.env.npm_config_cache ?? join(homedir(), ".npm"),
      npm_config_userconfig: process.env.npm_config_userconfig ?? join(homedir(), ".npmrc"),
      ...(process.env.npm_config_registry === undefined
        ? {}
        : { npm_config_registry: process.env.npm_config_registry }),
    });
    const out = await piCli(place, ["install", `git:${gitSource}`], 60_000);
    expect(out).toContain("no build tools here");
    const clone = join(place.agentDir, "git", gitSource);
    expect(existsSync(join(clone, "node_modules", "neverthrow"))).toBe(true);
    expect(existsSync(join(clone, "node_modules", "tsup"))).toBe(false);
    await expectMailboxFrom(
      { ...place, env: { ...place.env, PI_OFFLINE: "1" } },
      [],
      join(clone, manifest.pi.extensions[0] ?? ""),
    );
  }, 60_000);
});
