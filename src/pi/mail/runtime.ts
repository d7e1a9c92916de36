// The mailbox of one Pi session as the extension keeps it: the engine made at session_start, moved
// to a new mail root when XDG_STATE_HOME changes, and shut down at session_shutdown.
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { agentDirFromEnv } from "../../adapters/node/agent-dir.js";
import { mailRootFromEnv } from "../../adapters/node/mail-root.js";
import { isAddress } from "../../domain/mail/address.js";
import type { MailboxEngine } from "../../domain/mail/engine/index.js";
import { createNodeMailbox } from "../../wiring/node-mailbox.js";
import { onSessionLabel } from "../shared/roster.js";
import { emitInbound } from "./hooks.js";
import { createNamesakeCheck, type NamesakeCheck } from "./namesakes.js";
import { createPiHost } from "./pi-host.js";

interface Live {
  engine: MailboxEngine;
  /** The mail root this engine was opened on, from XDG_STATE_HOME at its start. */
  root: string;
  piContext: ExtensionContext;
  disconnect: () => void;
  namesakes: NamesakeCheck;
}

interface MailRuntime {
  /** The engine, on the mail root XDG_STATE_HOME names now; undefined before a start. */
  engine(): MailboxEngine | undefined;
  start(piContext: ExtensionContext): void;
  stop(): void;
  renamed(name: string | undefined, piContext: ExtensionContext): void;
}

/** A warning through this piContext; a replaced session's piContext throws, and a warning is not worth a crash. */
function warner(piContext: ExtensionContext): (text: string) => void {
  return (text) => {
    try {
      piContext.ui.notify(text, "warning");
    } catch {
      // The session was replaced meanwhile.
    }
  };
}

export function createMailRuntime(pi: ExtensionAPI): MailRuntime {
  let live: Live | undefined;
  // This session's bus label, heard from the bus of this process (before or after the mailbox starts).
  let busLabel: { id: string; label: string | undefined } | undefined;
  onSessionLabel(pi.events, (id, label) => {
    busLabel = { id, label };
    if (live?.engine.identity()?.address === id) live.engine.relabeled(label);
  });

  const start = (piContext: ExtensionContext) => {
    const address = piContext.sessionManager.getSessionId();
    if (!isAddress(address)) {
      piContext.ui.notify(
        `The mailbox is off: the session id ${JSON.stringify(address)} cannot be a mail address.`,
        "error",
      );
      return;
    }
    let open = true;
    const root = mailRootFromEnv();
    const mailbox = createNodeMailbox({
      host: createPiHost(pi, piContext, () => open),
      agentDir: agentDirFromEnv(),
      root,
    });
    const disconnect = emitInbound(pi, mailbox);
    const namesakes = createNamesakeCheck();
    const closeHost = () => {
      open = false;
      disconnect();
    };
    live = { engine: mailbox, root, piContext, disconnect: closeHost, namesakes };
    const label = busLabel?.id === address ? busLabel.label : undefined;
    mailbox.sessionStarted({ address, name: pi.getSessionName(), cwd: piContext.cwd, label });
    namesakes(mailbox, warner(piContext));
  };

  const stop = () => {
    const current = live;
    live = undefined;
    if (current === undefined) return;
    current.engine.shutdown();
    current.disconnect();
  };

  return {
    // XDG_STATE_HOME is read at every call, as the spec says: when it names another mail root now,
    // the mailbox moves there (a new engine on the new root) before the call is served.
    engine() {
      const current = live;
      if (current !== undefined && mailRootFromEnv() !== current.root) {
        stop();
        start(current.piContext);
        warner(current.piContext)(
          `The mail root is now ${mailRootFromEnv()} (XDG_STATE_HOME changed): this session's mailbox moved there.`,
        );
      }
      return live?.engine;
    },
    start(piContext) {
      stop();
      start(piContext);
    },
    stop,
    renamed(name, piContext) {
      const current = live;
      if (current === undefined) return;
      current.engine.renamed(name);
      current.namesakes(current.engine, warner(piContext));
    },
  };
}
