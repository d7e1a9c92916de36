// `npm run demo`: three real Pi sessions (RPC mode, an offline scripted model, no API key, no
// network) exchange mail through the session-mail extension, a shell asks one of them with the
// `switchboard` program (scripts/demo-shell.ts), and the transcript says who said what and which files
// moved; then three more coordinate on one git repository through session-bus (scripts/demo-bus.ts). Exits non-zero when any step did not happen.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { contentText, isObject, type RpcRecord } from "../test/e2e/harness/rpc-records.js";
import { createSandbox, e2ePaths, type PiSession, type Sandbox, startPi } from "../test/e2e/harness/rpc-session.js";
import { runBusDemo } from "./demo-bus.js";
import { check, failures, lastAssistantText, say } from "./demo-log.js";
import { runShellDemo } from "./demo-shell.js";

const stepTimeoutMs = 30_000;
const ids = {
  alice: "019ad0e0-0000-7000-8000-00000000a11c",
  bob: "019ad0e0-0000-7000-8000-000000000b0b",
  carol: "019ad0e0-0000-7000-8000-0000000ca201",
} as const;
type Name = keyof typeof ids;

function notices(session: PiSession, since: number): string[] {
  return session.events
    .slice(since)
    .filter((r) => r.type === "extension_ui_request" && r.method === "notify")
    .map((r) => String(r.message ?? ""));
}

function customMail(record: RpcRecord): string | undefined {
  if (record.type !== "message_end" || !isObject(record.message)) return undefined;
  const message = record.message;
  return message.role === "custom" && message.customType === "session-mail" ? contentText(message.content) : undefined;
}

function mailFiles(sandbox: Sandbox): string[] {
  const root = join(sandbox.state, "pi-session-mail");
  const lines: string[] = [];
  const owner = (address: string) => (Object.keys(ids) as Name[]).find((n) => ids[n] === address) ?? address;
  for (const address of Object.values(ids)) {
    for (const box of ["new", "cur", "sent"]) {
      let names: string[] = [];
      try {
        names = readdirSync(join(root, address, box));
      } catch {
        continue;
      }
      for (const name of names.sort()) {
        const envelope = JSON.parse(readFileSync(join(root, address, box, name), "utf8")) as Record<string, unknown>;
        const status = envelope.status ? ` ${String(envelope.status)}` : "";
        lines.push(
          `${owner(address)}/${box}/${name.slice(0, 24)}…  ${String(envelope.kind)}${status} ${owner(String(envelope.from))} → ${owner(String(envelope.to))}`,
        );
      }
    }
  }
  return lines;
}

async function main(): Promise<void> {
  const sandbox = createSandbox();
  const sessions = new Map<Name, PiSession>();
  try {
    say("demo", `mail root ${join(sandbox.state, "pi-session-mail")}`);
    for (const name of Object.keys(ids) as Name[]) {
      sessions.set(name, startPi({ sandbox, sessionId: ids[name], name, extensions: [e2ePaths.repoRoot] }));
    }
    await Promise.all([...sessions.values()].map((s) => s.request({ type: "get_state" }, stepTimeoutMs)));
    const alice = sessions.get("alice")!;
    const bob = sessions.get("bob")!;
    const carol = sessions.get("carol")!;
    say("demo", "three Pi sessions are running: alice, bob and carol (scripted offline model)");

    // 1. The user in alice's pane hands bob a request with /mailbox.
    const text = "Please summarise the plan in one line.";
    say("alice", `(user types) /mailbox bob ${text}`);
    let since = alice.mark();
    const bobSince = bob.mark();
    await alice.request({ type: "prompt", message: `/mailbox bob ${text}` }, stepTimeoutMs);
    await alice.waitFor(
      (r) => r.type === "extension_ui_request" && String(r.message ?? "").startsWith("Sent "),
      stepTimeoutMs,
      { since },
    );
    say("alice", notices(alice, since).join(" | "));
    const mailSeen = await bob.waitFor((r) => customMail(r) !== undefined, stepTimeoutMs, { since: bobSince });
    say("bob", `woke up and read:\n${customMail(mailSeen)}`);
    await bob.waitFor((r) => r.type === "agent_settled", stepTimeoutMs, { since: bobSince });
    say("bob", `answered: ${lastAssistantText(bob.events.slice(bobSince))}`);
    const reply = await alice.waitFor((r) => (customMail(r) ?? "").includes("This is its reply"), stepTimeoutMs, {
      since,
    });
    say("alice", `got the automatic reply:\n${customMail(reply)}`);
    check((customMail(reply) ?? "").includes(`echo: ${text}`), "bob's answer came back to alice as a reply");

    // 2. carol's model asks bob with session_mail_ask and waits for the answer.
    say("carol", `(user types) Ask bob for the build status.`);
    since = carol.mark();
    const run = await carol.prompt(
      'Ask bob for the build status.\nCALL_TOOL session_mail_ask {"to":"bob","message":"What is the build status?"}',
      stepTimeoutMs,
    );
    const toolEnd = run.records.find((r) => r.type === "tool_execution_end");
    const toolText = isObject(toolEnd?.result) ? contentText(toolEnd.result.content) : "";
    say("carol", `session_mail_ask returned:\n${toolText}`);
    say("carol", `final answer: ${lastAssistantText(run.records)}`);
    check(
      toolText.includes("Answer from bob") && toolText.includes("echo: What is the build status?"),
      "carol's ask came back as the tool result",
    );

    // 3. Who is running, as a model sees it.
    since = bob.mark();
    const listed = await bob.prompt("CALL_TOOL session_mail_list {}", stepTimeoutMs);
    const listEnd = listed.records.find((r) => r.type === "tool_execution_end");
    const listing = isObject(listEnd?.result) ? contentText(listEnd.result.content) : "";
    say("bob", `session_mail_list:\n${listing}`);
    check(
      ["alice", "bob", "carol"].every((n) => listing.includes(n)),
      "session_mail_list shows all three sessions",
    );

    // 4. Mail you can follow: what alice sent and where each stands; a request still queued for a
    // session that is not running is withdrawn.
    const later = "d0e5e700-0000-7000-8000-0000000000d0";
    const command = async (who: PiSession, line: string): Promise<string> => {
      const from = who.mark();
      await who.request({ type: "prompt", message: line }, stepTimeoutMs);
      await who.waitFor((r) => r.type === "extension_ui_request" && r.method === "notify", stepTimeoutMs, {
        since: from,
      });
      return notices(who, from).join(" | ");
    };
    say("alice", `(user types) /mailbox ${later} Pick this up when you start.`);
    say("alice", await command(alice, `/mailbox ${later} Pick this up when you start.`));
    say("alice", "(user types) /mailbox sent");
    const sent = await command(alice, "/mailbox sent");
    say("alice", sent);
    check(
      sent.includes("to bob") && sent.includes(": answered") && sent.includes("waiting for d0e5e700 to start"),
      "/mailbox sent shows bob's request answered and the other waiting for its recipient to start",
    );
    const queuedId = /request ([0-9a-f]{8}) to d0e5e700/.exec(sent)?.[1] ?? "";
    say("alice", `(user types) /mailbox cancel ${queuedId}`);
    const cancelled = await command(alice, `/mailbox cancel ${queuedId}`);
    say("alice", cancelled);
    check(cancelled.startsWith("Withdrawn:"), "the queued request was withdrawn before anyone read it");

    // 5. From a plain shell: who runs, and an ask answered on stdout.
    await runShellDemo(sandbox);

    say("demo", `files in the mail root:\n${mailFiles(sandbox).join("\n")}`);
    for (const session of sessions.values()) await session.close();
    const records = readdirSync(join(sandbox.state, "pi-session-mail", "running"));
    check(records.length === 0, "every running record was removed at shutdown");

    await runBusDemo(sandbox);
  } finally {
    await sandbox.cleanup();
  }
}

main().then(
  () => {
    if (failures.length > 0) {
      console.error(`demo failed: ${failures.join("; ")}`);
      process.exit(1);
    }
    say("demo", "done: every step happened");
  },
  (error: unknown) => {
    console.error(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
