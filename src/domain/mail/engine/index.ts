export type { AskOutcome, EngineOptions, InboundListener, InboundMail, MailIdentity } from "./context.js";
export { type FooterCounts, footerText } from "./footer.js";
export {
  type AskProgress,
  type AskSignal,
  createMailboxEngine,
  type MailboxEngine,
} from "./mailbox-engine.js";
export type { ReplyError, SendError, Sent } from "./outbox.js";
export type { ListedSession } from "./presence.js";
export type { PruneVerdict } from "./prune.js";
export type { CancelError, SentItem } from "./sent.js";
